import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, IdParams, PageQuery, Paged } from '../../schemas.js'
import { BulkResult } from '../products/index.js'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

/** Month and day, and the year when known; 29 February needs a leap year or no year (granted on 28 February otherwise). */
export const Birthday = Type.Object({
  month: Type.Integer({ minimum: 1, maximum: 12 }),
  day: Type.Integer({
    minimum: 1,
    maximum: 31,
    description: 'A day that exists in that month (29 February only without a year or in a leap year)'
  }),
  year: Type.Optional(Nullable(Type.Integer({ minimum: 1900, maximum: 9999 })))
}, { additionalProperties: false })

/**
 * docs/contract/api-conventions.md#bulk-upserts and docs/contract/resources.md#customers. Every field is written on
 * each upsert: an omitted one is cleared.
 */
export const CustomerItem = Type.Object({
  platformCustomerId: Type.String({ minLength: 1, maxLength: 191, description: 'The upsert key' }),
  email: Type.Optional(
    Nullable(
      Type.String({
        format: 'email',
        maxLength: 320,
        description: 'Orders with this address link to the customer (compared case-insensitively)'
      })
    )
  ),
  firstName: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  lastName: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  phone: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  birthday: Type.Optional(Nullable(Birthday))
}, { additionalProperties: false })

export const Customer = Type.Object({
  id: Type.String({ description: 'The service\'s id (`cus_…`): loyalty and referrals name customers by it' }),
  platformCustomerId: Type.Union([Type.String(), Type.Null()], {
    description: 'null for a customer made from a gallery lead (`POST /galleries/:id/leads`) until a sync of the same email takes it over'
  }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'Shown in full to `customers:read`' }),
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
  birthday: Type.Union([
    Type.Object({ month: Type.Integer(), day: Type.Integer(), year: Type.Union([Type.Integer(), Type.Null()]) }),
    Type.Null()
  ]),
  createdAt: DateTime,
  updatedAt: DateTime
})

export const upsertCustomers = {
  tags: ['customers'],
  summary: 'Upsert up to 250 customers keyed on platformCustomerId; each item replaces the stored customer',
  description: 'As PUT /products: items are independent (a bad item is reported in `errors` with its index, the ' +
    'rest are stored, status 200: check `failed`), more than 250 is `batch_too_large`, an identical re-send changes ' +
    'nothing and appends no event. A new customer appends `customer.created`, a changed one `customer.updated`. An ' +
    'item with a new platform id takes over the customer a gallery lead made with its email (same id, now with the ' +
    'platform id and the item\'s fields; `customer.updated`), so a shopper is one customer.',
  body: Type.Object({ customers: Type.Array(CustomerItem, { maxItems: 250 }) }, {
    examples: [{
      customers: [{
        platformCustomerId: 'gid-7001',
        email: 'ann@example.com',
        firstName: 'Ann',
        lastName: 'Lee',
        birthday: { month: 2, day: 29 }
      }]
    }]
  }),
  response: { 200: BulkResult, ...authErrors }
}

export const listCustomers = {
  tags: ['customers'],
  summary: 'List customers, least recently updated first (updatedAt, then id)',
  description: 'Customers come from the platform (PUT /customers) and from gallery leads: a lead\'s address becomes a ' +
    'customer without a platform id, or gives its name to the customer with that address if they have none. With `updatedSince`, only customers updated at or after that instant: a sync keeps the latest ' +
    '`updatedAt` it has seen and asks again from there. Erased customers are not listed.',
  querystring: Type.Object({
    ...PageQuery,
    updatedSince: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601 with a time zone, within 1970–9999' })),
    email: Type.Optional(
      Type.String({ minLength: 1, maxLength: 320, description: 'Only the customer with this address (case-insensitive)' })
    )
  }),
  response: { 200: Paged(Customer), ...authErrors }
}

export const getCustomer = {
  tags: ['customers'],
  summary: 'One customer by id',
  params: IdParams,
  response: { 200: Customer, ...authErrors }
}

export const eraseCustomer = {
  tags: ['customers'],
  summary: 'Erase a customer: their personal data is removed everywhere the service holds it',
  description: 'In one transaction, and recorded in the audit log (`customer.erased`): the customer\'s email, names, ' +
    'phone, birthday and platform id are cleared; their orders lose the customer email and name; their reviews stay ' +
    'but anonymised (author name `Anonymous`, no email); events already logged lose the address and the names next to ' +
    'it; pending referrals of the address are withdrawn; their gallery leads are deleted, and the gallery photos they ' +
    'sent lose their name and address (approved photos stay, anonymised; pending and rejected ones are deleted). ' +
    'Loyalty points stay on the (now anonymous) account. ' +
    'Appends `customer.deleted` (with the id only). The customer is then gone from the API (404); a later sync of the ' +
    'same platform id creates a new customer.',
  params: IdParams,
  response: { 204: Type.Null(), ...authErrors }
}
