/** Milliseconds since the epoch. Injected everywhere time matters so tests can move it. */
export type Clock = () => number

export const systemClock: Clock = () => Date.now()

export function iso (ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(Number(ms)).toISOString()
}
