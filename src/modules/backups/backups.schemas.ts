import { Type } from '@sinclair/typebox'
import { authErrors, DateTime, ErrorBody, IdParams, NullableDateTime, PageQuery, Paged } from '../../schemas.js'

const Str = Type.String

export const Backup = Type.Object({
  id: Str(),
  storeEnvId: Str(),
  status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')]),
  size: Type.Union([Type.Integer(), Type.Null()], { description: 'Bytes of the gzipped file, once completed' }),
  checksum: Type.Union([
    Type.Object({ algorithm: Type.Literal('sha256'), value: Str({ description: 'Hex digest of the downloaded file' }) }),
    Type.Null()
  ]),
  counts: Type.Union([Type.Record(Str(), Type.Integer()), Type.Null()], { description: 'Rows exported per table' }),
  error: Type.Union([Str(), Type.Null()]),
  createdAt: DateTime,
  completedAt: NullableDateTime
})

const doc = 'A backup is one store\'s data (catalog, orders, reviews, customers, loyalty, incentives, affiliates, email ' +
  'settings, on-site content, and the uploaded images and videos with their content; never secrets, logs or account ' +
  'records) as gzipped NDJSON, described in docs/backups.md. ' +
  'Owners and admins only.'

export const createBackup = {
  tags: ['backups'],
  summary: 'Start a backup of the store; it is built in the background (poll GET /backups/:id)',
  description: doc + ' Appends `backup.created`, then `backup.updated` when it completes or fails.',
  response: { 202: Backup, ...authErrors }
}

export const listBackups = {
  tags: ['backups'],
  summary: 'List the store\'s backups, newest first',
  querystring: Type.Object({
    ...PageQuery,
    updatedSince: Type.Optional(Type.String({ format: 'date-time', description: 'Only backups created or finished at or after this time' }))
  }),
  response: { 200: Paged(Backup), ...authErrors }
}

export const getBackup = {
  tags: ['backups'],
  summary: 'One backup: status, size and checksum',
  params: IdParams,
  response: { 200: Backup, ...authErrors }
}

export const downloadBackup = {
  tags: ['backups'],
  summary: 'Download a completed backup (application/gzip; NDJSON inside)',
  description: 'The `x-checksum-sha256` header repeats the checksum to compare with. 409 `conflict` until the backup is completed.',
  params: IdParams,
  response: {
    // The file is sent as it is, never serialized: the document names its real type (not application/json).
    200: { description: 'The gzipped NDJSON file', content: { 'application/gzip': { schema: Type.String({ format: 'binary' }) } } },
    409: ErrorBody,
    ...authErrors
  }
}

export const restoreBackup = {
  tags: ['backups'],
  summary: 'Restore a completed backup into an empty store of the same organization',
  description: 'In one transaction: every row of the backup is written into the target store, with fresh ids where ids ' +
    'are global and every reference following them, and the store\'s totals and analytics are rebuilt. Each uploaded ' +
    'file is written to the target\'s storage under its new id and checked against its size and SHA-256 in the backup; ' +
    'a file that does not match is 409 `conflict` and nothing (no row, no file) is written. A store holding ' +
    'any data a backup holds is refused with 409 `conflict`; a store of another organization is 404 `not_found`. Repeating the same ' +
    'restore answers 200 with the first result and writes nothing (idempotent).',
  params: IdParams,
  body: Type.Object({ targetStoreEnvId: Str({ minLength: 1, maxLength: 64 }) }, {
    additionalProperties: false,
    examples: [{ targetStoreEnvId: 'env_7Hq2Xb9LmP4sT1vW3yZ5' }]
  }),
  response: {
    200: Type.Object({
      backupId: Str(),
      targetStoreEnvId: Str(),
      counts: Type.Record(Str(), Type.Integer(), { description: 'Rows written per table' }),
      restoredAt: DateTime
    }),
    409: ErrorBody,
    ...authErrors
  }
}
