/**
 * API keys this process checked recently, with their user and tenant, so a key in use costs no
 * statement on most requests. An entry is trusted for `CREDENTIAL_TTL_MS`; what changes a
 * credential (a revoked key, a user given a tenant, a renamed tenant) is forgotten at once by the
 * process that changed it, and by the others within that bound. Misses are not cached: made-up keys
 * cannot fill it, and their count is bounded (`MAX_CACHED_CREDENTIALS`, oldest first out).
 *
 * A lookup that started before a change must not put back what the change removed: every change
 * starts a new generation, and a row read in an older one is not kept.
 */
import type { ApiKeyId, TenantId, UserId } from "@voiceagent/domain/Ids"
import type { KeyCredential } from "@voiceagent/runner/ApiKeys/ApiKeysRepo"

export const CREDENTIAL_TTL_MS = 2_000

export const MAX_CACHED_CREDENTIALS = 10_000

interface Entry {
  readonly credential: KeyCredential
  readonly until: number
}

export class CredentialCache {
  private readonly entries = new Map<string, Entry>()
  private current = 0

  constructor(
    private readonly ttlMillis: number = CREDENTIAL_TTL_MS,
    private readonly capacity: number = MAX_CACHED_CREDENTIALS
  ) {}

  /** Taken before reading a credential; `keep` stores the row only if nothing changed since. */
  get generation(): number {
    return this.current
  }

  get size(): number {
    return this.entries.size
  }

  find(hash: string, now: number): KeyCredential | undefined {
    const entry = this.entries.get(hash)
    if (entry === undefined) return undefined
    if (entry.until <= now) {
      this.entries.delete(hash)
      return undefined
    }
    return entry.credential
  }

  keep(hash: string, credential: KeyCredential, now: number, readIn: number): void {
    if (readIn !== this.current) return
    this.entries.delete(hash)
    this.entries.set(hash, { credential, until: now + this.ttlMillis })
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!)
  }

  /** Records a write of `lastUsedAt`, so the next requests do not write it again. */
  touched(hash: string, credential: KeyCredential): void {
    const entry = this.entries.get(hash)
    if (entry !== undefined) this.entries.set(hash, { credential, until: entry.until })
  }

  forgetKey(id: ApiKeyId): void {
    this.forget((c) => c.id === id)
  }

  forgetUser(id: UserId): void {
    this.forget((c) => c.user.id === id)
  }

  forgetTenant(id: TenantId): void {
    this.forget((c) => c.user.tenantId === id)
  }

  private forget(matches: (credential: KeyCredential) => boolean): void {
    this.current++
    for (const [hash, entry] of this.entries) if (matches(entry.credential)) this.entries.delete(hash)
  }
}
