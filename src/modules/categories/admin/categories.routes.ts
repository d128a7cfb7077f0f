import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { type CategoriesService, type CategoryInput } from '../categories.service.js'
import { bodies } from '../categories.schemas.js'
import { apiBodyCheck } from '../../admin/index.js'
import { currentStore, can, formErrorStatus, redirect, render, requireAccess } from '../../admin/index.js'
import { setFlash } from '../../admin/index.js'

export interface CategoryServices { categories: CategoriesService }

type Category = Awaited<ReturnType<CategoriesService['get']>>
type Shown = Category & { depth: number, parentName: string | null }

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
/** Generous bounds: what the API refuses is shown on the form in its words (apiBodyCheck), not as a bare 400. */
const CategoryForm = Type.Object({
  name: Type.String({ maxLength: 2000 }),
  slug: Type.Optional(Type.String({ maxLength: 2000 })),
  parentId: Type.Optional(Type.String({ maxLength: 64 }))
})
type Form = Static<typeof CategoryForm>

const LABELS = { name: 'Name', slug: 'Slug', parentId: 'Parent' }
const checkCreate = apiBodyCheck(bodies.create, LABELS)
const checkPatch = apiBodyCheck(bodies.patch, LABELS)

/** The page shows the whole tree up to this many categories (ten API pages); past it the parent is typed as an id. */
const MAX_SHOWN = 1000

/** A slug from the name when the field is left empty ("Tops & Tees" -> "tops-tees"); the API still judges it. */
function slugOf (name: string): string {
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 191).replace(
    /^-+|-+$/g,
    ''
  )
}

/** The form as the API's body: an empty parent is a top-level category. */
function inputOf (form: Form): Required<CategoryInput> {
  const name = form.name.trim()
  return { name, slug: form.slug?.trim() || slugOf(name), parentId: form.parentId?.trim() || null }
}

/** Depth first, siblings by name: each category under its parent, indented by depth. */
function asTree (categories: Category[]): Shown[] {
  const byId = new Map(categories.map((c) => [c.id, c]))
  const children = new Map<string | null, Category[]>()
  for (const c of categories) {
    const parent = c.parentId !== null && byId.has(c.parentId) ? c.parentId : null
    children.set(parent, [...(children.get(parent) ?? []), c])
  }
  const shown: Shown[] = []
  const visit = (parent: string | null, depth: number) => {
    for (const c of [...(children.get(parent) ?? [])].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))) {
      shown.push({ ...c, depth, parentName: c.parentId === null ? null : byId.get(c.parentId)?.name ?? null })
      visit(c.id, depth + 1)
    }
  }
  visit(null, 0)
  return shown
}

/**
 * The store's category tree (docs/contract/resources.md#categories) through the service of /v1/categories: list,
 * create, edit, delete.
 */
export const categoriesPages: FastifyPluginAsync<{ services: CategoryServices }> = async (app, { services }) => {
  const service = services.categories

  async function tree (storeId: string) {
    const categories: Category[] = []
    let total = 0
    for (let page = 1; categories.length < MAX_SHOWN; page++) {
      const batch = await service.list(storeId, { page, limit: 100 })
      categories.push(...batch.data)
      total = batch.meta.total
      if (page >= batch.meta.totalPages) break
    }
    return { categories: asTree(categories), total, complete: total <= MAX_SHOWN }
  }

  async function listPage (request: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}, status = 200) {
    const ctx = requireAccess(request, 'categories', 'read')
    const store = currentStore(ctx)
    const shown = await tree(store.id)
    return render(request, reply, 'categories/admin/views/categories', {
      title: 'Categories',
      store,
      ...shown,
      canWrite: can(ctx, 'categories', 'write'),
      values: {},
      ...extra
    }, status)
  }

  async function editPage (request: FastifyRequest, reply: FastifyReply, id: string, extra: Record<string, unknown> = {}, status = 200) {
    const ctx = requireAccess(request, 'categories', 'read')
    const store = currentStore(ctx)
    const category = await service.get(store.id, id)
    const { categories, complete } = await tree(store.id)
    return render(request, reply, 'categories/admin/views/category', {
      title: `Category ${category.name}`,
      category,
      parents: categories.filter((c) => c.id !== category.id),
      complete,
      canWrite: can(ctx, 'categories', 'write'),
      values: { name: category.name, slug: category.slug, parentId: category.parentId ?? '' },
      ...extra
    }, status)
  }

  app.get('/categories', async (request, reply) => listPage(request, reply))

  app.post<{ Body: Form }>('/categories', { schema: { body: CategoryForm } }, async (request, reply) => {
    const ctx = requireAccess(request, 'categories', 'write')
    try {
      const input = inputOf(request.body)
      checkCreate(input)
      const created = await service.create(currentStore(ctx), input)
      setFlash(reply, { notice: `The category “${created.name}” is created.` })
    } catch (err) {
      return listPage(request, reply, { error: (err as Error).message, values: request.body }, formErrorStatus(err))
    }
    return redirect(reply, '/admin/categories')
  })

  app.get<{ Params: Static<typeof IdParams> }>('/categories/:id', { schema: { params: IdParams } }, async (request, reply) =>
    editPage(request, reply, request.params.id))

  app.post<{ Params: Static<typeof IdParams>, Body: Form }>(
    '/categories/:id',
    { schema: { params: IdParams, body: CategoryForm } },
    async (request, reply) => {
      const ctx = requireAccess(request, 'categories', 'write')
      try {
        const input = inputOf(request.body)
        checkPatch(input)
        const saved = await service.update(currentStore(ctx), request.params.id, input)
        setFlash(reply, { notice: `The category “${saved.name}” is saved.` })
      } catch (err) {
        return editPage(request, reply, request.params.id, { error: (err as Error).message, values: request.body }, formErrorStatus(err))
      }
      return redirect(reply, '/admin/categories')
    }
  )

  app.get<{ Params: Static<typeof IdParams> }>('/categories/:id/delete', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'categories', 'write')
    const category = await service.get(currentStore(ctx).id, request.params.id)
    return render(request, reply, 'confirm', {
      title: 'Delete category',
      question: `Delete the category “${category.name}”?`,
      consequence: 'Products and FAQs in it lose it (they are kept). A category with subcategories is kept: move or delete those first.',
      action: `/admin/categories/${category.id}/delete`,
      button: 'Delete category',
      back: `/admin/categories/${category.id}`
    })
  })

  app.post<{ Params: Static<typeof IdParams> }>('/categories/:id/delete', { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requireAccess(request, 'categories', 'write')
    try {
      await service.remove(currentStore(ctx), request.params.id)
    } catch (err) {
      formErrorStatus(err) // rethrows a server error
      if ((err as { statusCode?: number }).statusCode === 404) throw err
      setFlash(reply, { error: (err as Error).message })
      return redirect(reply, `/admin/categories/${request.params.id}`)
    }
    setFlash(reply, { notice: 'The category is deleted.' })
    return redirect(reply, '/admin/categories')
  })
}
