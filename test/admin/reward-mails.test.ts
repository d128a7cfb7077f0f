import t from 'tap'
import { call, sharedApp } from '../helper.js'
import { signedInMember, signedInOwner } from './agent.js'

/** The reward mails switches on the admin email page (issue 17), through the service of /v1/email/settings. */

t.test('an owner turns reward mails off and on from the email page', async (t) => {
  const app = await sharedApp()
  const { tenant, agent } = await signedInOwner(app)
  const page = await agent.get('/admin/email')
  t.equal(page.statusCode, 200)
  t.match(page.body, '<input type="checkbox" name="loyaltyRewardMails" checked>')
  const saved = await agent.post('/admin/email/settings', { reviewIncentiveMails: 'on' })
  t.equal(saved.statusCode, 303)
  t.match((await call(app, { method: 'GET', url: '/v1/email/settings', key: tenant.key, store: tenant.storeId })).json(), {
    loyaltyRewardMails: false,
    reviewIncentiveMails: true
  })
  const after = await agent.get('/admin/email')
  t.match(after.body, 'The reward mail settings are saved.')
  t.match(after.body, '<input type="checkbox" name="loyaltyRewardMails">')
  t.match(after.body, '<input type="checkbox" name="reviewIncentiveMails" checked>')
})

t.test('a viewer sees the reward mail settings without a form and cannot change them', async (t) => {
  const app = await sharedApp()
  const { tenant } = await signedInOwner(app)
  const { agent, member } = await signedInMember(app, tenant, 'editor')
  await app.db('memberships').where({ org_id: tenant.orgId, person_id: member.id }).update({ role: 'viewer' })
  const page = await agent.get('/admin/email')
  t.match(page.body, 'Loyalty rewards: on · Review incentives: on')
  t.notMatch(page.body, 'action="/admin/email/settings"')
  const refused = await agent.post('/admin/email/settings', {})
  t.equal(refused.statusCode, 403)
  t.notMatch(refused.body, 'Form expired', 'refused for the role, not for the form')
  t.match((await call(app, { method: 'GET', url: '/v1/email/settings', key: tenant.key, store: tenant.storeId })).json(), {
    loyaltyRewardMails: true,
    reviewIncentiveMails: true
  })
})
