import { parseArgs } from 'node:util'
import { UsageError, type Command } from './command.js'

function parse (args: string[]) {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        name: { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true },
        public: { type: 'boolean' },
        org: { type: 'string' }
      }
    }).values
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

/**
 * OAuth for the automation connector (docs/contract/oauth.md#registering-clients and
 * docs/contract/operations.md#operator-command-line).
 */
export const commands: Record<string, Command> = {
  'oauth-client create': {
    usage: 'oauth-client create --name NAME --redirect-uri URI... [--public] [--org ID]   (without --org: offered to every organization)',
    async run ({ services, args }) {
      const v = parse(args)
      if (!v.name) throw new UsageError('--name is required')
      if (!v['redirect-uri']?.length) throw new UsageError('--redirect-uri is required')
      if (v.org && !await services.people.findOrganization(v.org)) throw new UsageError(`organization ${v.org} not found`)
      const created = await services.clients.create({
        name: v.name,
        redirectUris: v['redirect-uri'],
        public: Boolean(v.public),
        orgId: v.org ?? null,
        createdBy: 'cli'
      })
      return { clientId: created.clientId, clientSecret: created.clientSecret, registeredBy: created.registeredBy }
    }
  },
  'oauth-keys rotate': {
    usage: 'oauth-keys rotate   (new signing key; old ones stay verifiable until their tokens expire; restart instances to sign with it)',
    async run ({ services: { db, config, clock } }) {
      // Imported here: jose is only this command's (and `--help` loads no command's dependencies).
      const { rotateSigningKeys } = await import('../../oauth/keys.js')
      return rotateSigningKeys(db, config.secretKey, clock())
    }
  }
}
