import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errors } from '../../../errors.js'
import { type PlatformSyncService } from '../platform-sync.service.js'
import { PLATFORMS, type Platform } from '../platform-signatures.js'
import { setPlatformSecret } from '../platform-sync.schemas.js'
import { apiBodyCheck } from '../../admin/index.js'
import { currentStore, can, formErrorStatus, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'

export interface PlatformWebhookServices { platformSync: PlatformSyncService }

const PlatformParams = Type.Object({ platform: Type.String({ maxLength: 20 }) })
/** Generous bound: a secret the API refuses (under 8 or over 500 characters) is explained on the form. */
const SecretForm = Type.Object({ secret: Type.String({ maxLength: 2000 }) })

const checkSecret = apiBodyCheck(setPlatformSecret.body, { secret: 'Secret' })

/** Each platform's name and where its admin shows the secret it signs with (docs/sync.md). */
const PLATFORM_NAMES: Record<Platform, { name: string, where: string }> = {
  shopify: {
    name: 'Shopify',
    where: 'The app\'s client secret, or the secret Shopify shows under Settings › Notifications › Webhooks for webhooks made there.'
  },
  woocommerce: { name: 'WooCommerce', where: 'The Secret of the webhook (WooCommerce › Settings › Advanced › Webhooks).' },
  bigcommerce: {
    name: 'BigCommerce',
    where: 'The signing secret of the hook. Its product and order notifications are read with API credentials, set through the API.'
  }
}

function platformOf (name: string): Platform {
  if (!(PLATFORMS as readonly string[]).includes(name)) throw new errors.NotFound('Platform')
  return name as Platform
}

/**
 * The inbound platform webhooks of the current store (PUT /v1/webhooks/platforms/:platform): for each platform,
 * whether its signing secret is set (never the secret), the receiver URL to give the platform, and a form that
 * sets or replaces the secret through the API's service, audited there. The secret is write-only: never sent
 * back, not even after a refusal.
 */
export const platformWebhooksPages: FastifyPluginAsync<{ services: PlatformWebhookServices }> = async (app, { services }) => {
  const service = services.platformSync

  async function page (request: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}, status = 200) {
    const ctx = requireAccess(request, 'webhooks', 'read')
    const store = currentStore(ctx)
    const listed = (await service.listSecrets(store)).data
    const platforms = PLATFORMS.map((platform) => {
      const set = listed.find((p) => p.platform === platform)
      return {
        platform,
        ...PLATFORM_NAMES[platform],
        receiverUrl: service.receiverUrl(store.id, platform),
        secretSet: set?.secretSet ?? false,
        updatedAt: set?.updatedAt ?? null,
        apiCredentials: set?.apiCredentials ?? null
      }
    })
    const canWrite = can(ctx, 'webhooks', 'write')
    return render(request, reply, 'platform-sync/admin/views/platform-webhooks', {
      title: 'Platform webhooks',
      store,
      platforms,
      canWrite,
      ...extra
    }, status)
  }

  app.get('/platform-webhooks', async (request, reply) => page(request, reply))

  const secretRoute = { schema: { params: PlatformParams, body: SecretForm } }
  app.post<{ Params: Static<typeof PlatformParams>, Body: Static<typeof SecretForm> }>(
    '/platform-webhooks/:platform',
    secretRoute,
    async (request, reply) => {
      const ctx = requireAccess(request, 'webhooks', 'write')
      const platform = platformOf(request.params.platform)
      try {
        const secret = request.body.secret.trim()
        checkSecret({ secret })
        await service.setSecret(ctx.actor, currentStore(ctx), platform, secret, request.ip)
      } catch (err) {
        return page(request, reply, { error: (err as Error).message, errorPlatform: platform }, formErrorStatus(err))
      }
      setFlash(reply, { notice: `The ${PLATFORM_NAMES[platform].name} secret is set. Deliveries signed with it are accepted from now on.` })
      return redirect(reply, '/admin/platform-webhooks')
    }
  )
}
