import type { SecretBox } from './secretbox.js';

/**
 * Decrypted desk secrets, keyed by their sealed form: a rotation writes a new sealed value, so the
 * old plaintext is never looked up again and fails at once on every instance. Bounded in size.
 */
export class DeskSecretCache {
  private readonly cache = new Map<string, string>();
  constructor(private readonly box: SecretBox, private readonly max = 10_000) {}

  open(sealed: string): string {
    const hit = this.cache.get(sealed);
    if (hit !== undefined) return hit;
    const plain = this.box.open(sealed);
    if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(sealed, plain);
    return plain;
  }
}
