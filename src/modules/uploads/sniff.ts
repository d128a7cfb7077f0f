import type { FileTypeResult } from 'file-type'

/**
 * What the bytes are by their content (magic numbers), whatever the client said. file-type is ~1.5 MB of heap,
 * loaded with the first upload rather than by every instance at start.
 */
export async function sniff (bytes: Uint8Array): Promise<FileTypeResult | undefined> {
  const { fileTypeFromBuffer } = await import('file-type')
  return fileTypeFromBuffer(bytes)
}
