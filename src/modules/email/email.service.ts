import type { Knex } from 'knex'
import { errors } from '../../errors.js'
import { iso, type Clock } from '../../lib/clock.js'
import { toMs } from '../../lib/formats.js'
import { envelope, toPage, type PageQuery } from '../../lib/pagination.js'
import { sha256 } from '../../lib/secrets.js'
import type { EventLog } from '../events/index.js'
import type { EmailSuppressionsService } from '../email-suppressions/index.js'
import type { Credential, StoreEnv } from '../../types.js'
import type { EmailRepository, MessageRow, TemplateRow } from './email.repository.js'
import { UNSUBSCRIBE_TOKEN, type EmailSender } from './email.sender.js'
import { DEFAULT_TEMPLATES, sampleValues, unknownPlaceholders, VARIABLES, type TemplateKey } from './templates.js'

interface Deps {
  db: Knex
  repo: EmailRepository
  sender: EmailSender
  suppressions: EmailSuppressionsService
  events: EventLog
  clock: Clock
}

/**
 * Mail whose recipient is a reviewer, by the review's address: shown as reviews show it
 * (docs/contract/catalog.md#reviewer-email).
 */
const TO_REVIEWER = new Set(['review_incentive'])

export function presentMessage (row: MessageRow) {
  return {
    id: `msg_${row.id}`,
    storeEnvId: row.store_env_id,
    to: TO_REVIEWER.has(row.kind) ? `…${row.to.slice(-4)}` : row.to,
    subject: row.subject,
    kind: row.kind,
    status: row.status,
    reason: row.reason,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!
  }
}

function presentTemplate (key: TemplateKey, row: TemplateRow | undefined) {
  const template = row ?? DEFAULT_TEMPLATES[key]
  return {
    key,
    subject: template.subject,
    body: template.body,
    variables: [...VARIABLES[key]],
    custom: row !== undefined,
    updatedAt: iso(row?.updated_at)
  }
}

/** `ann@example.test` → `a…@example.test`: the unsubscribe page is public, so it never shows the whole address. */
function masked (email: string): string {
  const at = email.lastIndexOf('@')
  return at > 0 ? `${email[0]}…${email.slice(at)}` : '…'
}

/** The message log, the templates, test sends, previews and the public one-click unsubscribe. */
export function emailService ({ db, repo, sender, suppressions, events, clock }: Deps) {
  async function messageOf (token: string): Promise<MessageRow & { store_env_id: string }> {
    const row = UNSUBSCRIBE_TOKEN.test(token) ? await repo.findByTokenHash(sha256(token)) : undefined
    if (!row || !row.store_env_id) throw new errors.NotFound('Unsubscribe link')
    return row as MessageRow & { store_env_id: string }
  }

  async function targetOf (row: MessageRow & { store_env_id: string }) {
    const store = await db('store_envs').where({ id: row.store_env_id }).first('name')
    const suppressed = await suppressions.isSuppressed(row.store_env_id, row.to)
    return { email: masked(row.to), storeName: (store?.name as string | undefined) ?? 'this store', suppressed }
  }

  return {
    /** A credential limited to some stores sees its store's mail only; organization mail needs the whole org. */
    async listMessages (
      credential: Credential,
      store: StoreEnv,
      query: PageQuery & { status?: string, kind?: string, updatedSince?: string }
    ) {
      const page = toPage(query)
      const filter = { status: query.status, kind: query.kind, updatedSince: toMs(query.updatedSince), withOrgMail: !credential.storeIds }
      const { total, rows } = await repo.listMessages(store.orgId, store.id, filter, page)
      return envelope(rows.map(presentMessage), total, page)
    },

    async getTemplate (storeId: string, key: TemplateKey) {
      return presentTemplate(key, await repo.findTemplate(storeId, key))
    },

    /** Text with `{{variable}}` placeholders of the key's list only (templates.ts): anything else is a 400. */
    async putTemplate (store: StoreEnv, key: TemplateKey, input: { subject: string, body: string }) {
      for (const [field, text] of [['subject', input.subject], ['body', input.body]] as const) {
        const unknown = unknownPlaceholders(key, text)
        if (unknown.length) {
          throw new errors.InvalidRequest(
            `${field}: unknown placeholder ${unknown.join(', ')}; ${key} knows {{${VARIABLES[key].join('}}, {{')}}}`
          )
        }
      }
      const row: TemplateRow = {
        org_id: store.orgId,
        store_env_id: store.id,
        template_key: key,
        subject: input.subject,
        body: input.body,
        updated_at: clock()
      }
      const template = presentTemplate(key, row)
      await db.transaction(async (trx) => {
        await repo.putTemplate(trx, row)
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'email_template.updated', data: template })
      })
      return template
    },

    /** Back to the built-in default; the event carries the template now in use, as after any other change. */
    async resetTemplate (store: StoreEnv, key: TemplateKey) {
      const template = presentTemplate(key, undefined)
      await db.transaction(async (trx) => {
        await repo.removeTemplate(trx, store.id, key)
        await events.append(trx, { orgId: store.orgId, storeEnvId: store.id, type: 'email_template.updated', data: template })
      })
      return template
    },

    /** The template with sample values, through the same path as real mail (suppressions, log, unsubscribe link). */
    async sendTest (store: StoreEnv, input: { templateKey: TemplateKey, to: string }) {
      return db.transaction((trx) =>
        sender.send(trx, {
          orgId: store.orgId,
          storeEnvId: store.id,
          storeName: store.name,
          to: input.to,
          templateKey: input.templateKey,
          values: sampleValues(store.name),
          kind: 'test'
        })
      )
    },

    /** The HTML a customer would get, with sample values and a link that unsubscribes no one. */
    async preview (store: StoreEnv, key: TemplateKey) {
      const composed = await sender.compose(store.id, store.name, key, sampleValues(store.name), sender.unsubscribeUrlOf('preview'))
      return composed.html
    },

    unsubscribeTarget: async (token: string) => targetOf(await messageOf(token)),

    /**
     * RFC 8058 one-click: the token alone is the authority. An address already on the list keeps its reason (a
     * bounce stays a bounce), so repeating the request changes nothing.
     */
    async unsubscribe (token: string) {
      const row = await messageOf(token)
      if (!await suppressions.isSuppressed(row.store_env_id, row.to)) {
        await suppressions.suppress(db, { orgId: row.org_id, storeEnvId: row.store_env_id, email: row.to, reason: 'unsubscribed' })
      }
      return targetOf(row)
    }
  }
}
export type EmailService = ReturnType<typeof emailService>
