import { readFileSync } from 'node:fs'

export const JPEG = readFileSync(new URL('../fixtures/photo.jpg', import.meta.url))

/** A multipart/form-data body: text fields first, then the file (as browsers send a form), or after it with `after`. */
export function formData (
  file: { field?: string, filename: string, type: string, bytes: Buffer },
  fields: Record<string, string> = {},
  order: 'before' | 'after' = 'before'
) {
  const boundary = '----eh-content-boundary'
  const parts = Object.entries(fields).map(([name, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
  )
  const filePart = [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'image'}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`),
    file.bytes,
    Buffer.from('\r\n')
  ]
  const payload = Buffer.concat([
    ...(order === 'after' ? [...filePart, ...parts] : [...parts, ...filePart]),
    Buffer.from(`--${boundary}--\r\n`)
  ])
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}
