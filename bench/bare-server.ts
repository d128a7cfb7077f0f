/** The anchor every ratio is against: a bare fastify route in its own process, as the service runs in its own. */
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.get('/bare', async () => ({ ok: true }))
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
console.log('listening')
