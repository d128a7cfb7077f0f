import t from 'tap'
import type { Socket } from 'node:net'
import { connectRedis } from '../../src/lib/redis.js'
import { TEST_REDIS_URL } from '../helper.js'

/** Counts the socket writes (syscalls) that carry the commands, and the commands in each. */
function countWrites (stream: Socket): number[] {
  const writes: number[] = []
  const self = stream as unknown as { _writev: (chunks: unknown[], cb: () => void) => void, _write: (...a: unknown[]) => void }
  const writev = self._writev.bind(stream)
  const write = self._write.bind(stream)
  self._writev = (chunks, cb) => { writes.push(chunks.length); writev(chunks, cb) }
  self._write = (...a) => { writes.push(1); write(...a) }
  return writes
}

t.test('commands issued in one turn go out in writes of at most 16, answered in order', async (t) => {
  const redis = await connectRedis(TEST_REDIS_URL, () => {})
  t.teardown(() => redis.disconnect())
  await redis.ping()
  const writes = countWrites((redis as unknown as { stream: Socket }).stream)
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => redis.echo(`m${i}`)))
  t.same(answers, Array.from({ length: 40 }, (_, i) => `m${i}`))
  t.same(writes, [16, 16, 8])
})

t.test('a command issued alone goes out at the end of its turn, without waiting for others', async (t) => {
  const redis = await connectRedis(TEST_REDIS_URL, () => {})
  t.teardown(() => redis.disconnect())
  await redis.ping()
  const writes = countWrites((redis as unknown as { stream: Socket }).stream)
  t.equal(await redis.echo('alone'), 'alone')
  t.equal(await redis.echo('again'), 'again')
  t.same(writes, [1, 1])
})
