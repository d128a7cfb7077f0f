import type { Knex } from 'knex'
import type { Clock } from '../../lib/clock.js'
import type { MailTransport } from '../../lib/mail.js'
import { LEGACY_SIGNATURE_SUNSET, versioningUrl } from '../delivery/index.js'

/** The deprecated surface this service can see in use: deliveries carrying the body-only signature header. */
export const LEGACY_SIGNATURE_SURFACE = 'webhook.legacy_signature'

const WEEK_MS = 7 * 24 * 3_600_000

interface Deps { db: Knex, mail: MailTransport, clock: Clock, publicUrl: string }

interface UsageRow {
  org_id: string
  uses: number | string
  counted_until: number | string
  last_used_at: number | string | null
  last_store_env_id: string | null
  last_notified_at: number | string | null
}

/**
 * docs/changelog.md#versioning-policy: "the organization owner is contacted directly when activity shows continued
 * use". Every delivery before the sunset carries the body-only header, so each delivery attempt a receiver answered is
 * a use by its organization. A pass counts the attempts made since the last pass into `deprecation_usage`, then mails
 * the owners of each organization that used it in the past week and was not mailed in the past week. Passes may run on
 * several instances: the count and the notice are each claimed by a conditional update, so neither doubles.
 */
export function deprecationNotices ({ db, mail, clock, publicUrl }: Deps) {
  async function count (now: number): Promise<void> {
    const until = Math.min(now, LEGACY_SIGNATURE_SUNSET)
    // Per organization, the answered attempts since its count last ended (one never counted: the past week). The
    // constant bound keeps the read on the `at` index: a bound taken from the joined row alone reads every attempt
    // ever kept. It only matters when passes stopped for over a week, and then only for the running total.
    const used = await db('webhook_attempts as a')
      .leftJoin('deprecation_usage as u', (on) => on.on('u.org_id', 'a.org_id').andOnVal('u.surface', LEGACY_SIGNATURE_SURFACE))
      .where('a.at', '>=', now - WEEK_MS).whereRaw('a.at >= COALESCE(u.counted_until, ?)', [now - WEEK_MS]).where('a.at', '<', until)
      .whereNotNull('a.response_code')
      .groupBy('a.org_id', 'u.counted_until')
      .select('a.org_id as orgId', 'u.counted_until as countedUntil')
      .count({ n: '*' }).max({ last: 'a.at' }).max({ store: 'a.store_env_id' }) as Array<
        { orgId: string, countedUntil: number | string | null, n: number | string, last: number | string, store: string }
      >
    for (const row of used) {
      const counted = { counted_until: until, last_used_at: Number(row.last), last_store_env_id: row.store }
      if (row.countedUntil === null) {
        await db('deprecation_usage').insert({ org_id: row.orgId, surface: LEGACY_SIGNATURE_SURFACE, uses: Number(row.n), ...counted })
          .onConflict(['org_id', 'surface']).ignore()
      } else {
        // Conditional on where this pass started counting: another instance's pass over the same attempts changes nothing.
        await db('deprecation_usage').where({ org_id: row.orgId, surface: LEGACY_SIGNATURE_SURFACE, counted_until: row.countedUntil })
          .update({ uses: db.raw('uses + ?', [Number(row.n)]), ...counted })
      }
    }
  }

  async function notify (now: number): Promise<number> {
    const due: UsageRow[] = await db('deprecation_usage').where({ surface: LEGACY_SIGNATURE_SURFACE }).where(
      'last_used_at',
      '>=',
      now - WEEK_MS
    )
      .where((q) => q.whereNull('last_notified_at').orWhere('last_notified_at', '<=', now - WEEK_MS))
    let sent = 0
    for (const row of due) {
      await db.transaction(async (trx) => {
        const claimed = await trx('deprecation_usage').where({ org_id: row.org_id, surface: LEGACY_SIGNATURE_SURFACE })
          .where((q) => q.whereNull('last_notified_at').orWhere('last_notified_at', '<=', now - WEEK_MS)).update({ last_notified_at: now })
        if (claimed !== 1) return
        const owners = await trx('people').join('memberships', 'memberships.person_id', 'people.id')
          .where({ 'memberships.org_id': row.org_id, 'memberships.role': 'owner' }).select('people.email')
        for (const { email } of owners as Array<{ email: string }>) {
          await mail.send(trx, {
            orgId: row.org_id,
            storeEnvId: row.last_store_env_id!,
            to: email,
            subject: 'Action needed: webhook signature header removed on 15 January 2027',
            text: message(Number(row.uses))
          })
          sent++
        }
      })
    }
    return sent
  }

  function message (uses: number): string {
    return [
      'Your organization\'s webhooks still receive deliveries signed with the deprecated body-only header `x-service-signature`',
      `(${uses} deliveries so far). It is removed on 15 January 2027; from then on only \`x-service-signature-v2\` is sent.`,
      '',
      'Make sure your receivers verify `x-service-signature-v2` (t=<unix>,v1=<hex> over "<t>.<raw body>") before that day.',
      `What changes and how to verify: ${versioningUrl(publicUrl)}`,
      '',
      'You get this notice at most once a week while the deprecated header is in use.'
    ].join('\n')
  }

  return {
    /** One pass: count, then mail. Answers how many mails went out. */
    async runOnce (): Promise<number> {
      const now = clock()
      await count(now)
      return notify(now)
    }
  }
}
export type DeprecationNotices = ReturnType<typeof deprecationNotices>
