/** A map that forgets its least recently set entries beyond a size, so memory stays bounded whatever the traffic. */
export class BoundedMap<V> {
  private readonly map = new Map<string, V>()
  constructor (private readonly max: number) {}
  get (key: string) { return this.map.get(key) }
  delete (key: string) { this.map.delete(key) }
  clear () { this.map.clear() }
  set (key: string, value: V) {
    this.map.delete(key)
    this.map.set(key, value)
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!)
  }
}
