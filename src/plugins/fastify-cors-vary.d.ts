/** @fastify/cors's Vary helper (vary.js, not in its published types). */
declare module '@fastify/cors/vary.js' {
  import type { FastifyReply } from 'fastify'
  export function addOriginToVaryHeader (reply: FastifyReply): void
}
