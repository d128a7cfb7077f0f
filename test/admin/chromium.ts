import { existsSync } from 'node:fs'
import type { Test } from 'tap'

/** Debian's Chromium (apt-get install chromium; .ci/run installs it). Without it the browser tests are skipped. */
export const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
export const SKIP_MESSAGE = `browser tests skipped: ${CHROMIUM} is absent (install it with apt-get install chromium)`

/**
 * Without Chromium a browser test file plans nothing and is skipped, except under CI (env CI set, as .ci/run does
 * after installing Chromium): there a missing browser fails the file instead of passing it silently.
 */
export function withoutChromium (t: Test, ci = process.env.CI): void {
  if (ci) t.fail(`${CHROMIUM} is absent under CI: the browser tests cannot run (apt-get install chromium)`)
  else t.plan(0, SKIP_MESSAGE)
}
