import neostandard from 'neostandard'

export default neostandard({
  ts: true,
  ignores: ['node_modules/**', 'data/**', '.tap/**', 'connectors/zapier/node_modules/**', 'connectors/n8n/dist/**', 'connectors/n8n/node_modules/**', 'test/.artifacts/**', 'bench/.data/**', 'dist/**', 'sdk/src/schema.ts', '.stryker-tmp/**', 'reports/**']
})
