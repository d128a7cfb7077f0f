/** `make` run on the first call only; later calls answer what it made. */
export function once<T> (make: () => T): () => T {
  let made: { value: T } | undefined
  return () => (made ??= { value: make() }).value
}
