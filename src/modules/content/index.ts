export { crudRoutes } from './routes.js'
export { createAndPatch, crudSchemas, Id, Nullable, ProductRef, PublishStatus, SinceQuery, Stamps } from './schemas.js'
export { contentWriter } from './writer.js'
