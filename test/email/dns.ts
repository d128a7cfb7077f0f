import { Resolver } from 'node:dns/promises'
import dns2 from 'dns2'
import type { Test } from 'tap'

/**
 * A real DNS server on 127.0.0.1 (dns2, UDP) answering TXT and CNAME questions from its zone, and a node resolver
 * pointed at it: the service verifies sending domains through real DNS queries without leaving the machine.
 */
export async function localDns (t: Test) {
  const zone = new Map<string, { txt?: string[][], cname?: string }>()
  const { Packet } = dns2
  const dns = dns2.createServer({
    udp: true,
    handle (request, send) {
      const response = Packet.createResponseFromRequest(request)
      const [question] = request.questions
      const entry = zone.get(question.name.toLowerCase())
      if (entry && question.type === Packet.TYPE.TXT) {
        for (const data of entry.txt ?? []) {
          response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data } as never)
        }
      }
      if (entry?.cname && question.type === Packet.TYPE.CNAME) {
        response.answers.push(
          { name: question.name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 1, domain: entry.cname } as never
        )
      }
      send(response)
    }
  })
  const listening = await dns.listen({ udp: { port: 0, address: '127.0.0.1' } })
  t.teardown(() => dns.close())
  const resolver = new Resolver({ timeout: 2000, tries: 1 })
  resolver.setServers([`127.0.0.1:${(listening as { udp: { port: number } }).udp.port}`])

  /** Publishes what the service asked for; a DKIM value over 255 bytes is split into character-strings, as DNS hosts do. */
  function publish (records: Array<{ type: string, name: string, value: string }>) {
    for (const r of records) {
      const entry = zone.get(r.name) ?? {}
      if (r.type === 'CNAME') entry.cname = r.value
      else entry.txt = [...(entry.txt ?? []), r.value.match(/.{1,255}/g)!]
      zone.set(r.name, entry)
    }
  }

  return { resolver, zone, publish }
}
