/**
 * Knowledge bases' search targets this process read recently, so a query on a knowledge base in use
 * costs no statement. An entry is trusted for `SEARCH_TARGET_TTL_MS`; whatever changes a target (an
 * edit, a delete, a removed document, an ingestion job's purge or embedder switch) is forgotten at
 * once by the process that made the change, and by the others within that bound. Misses are not
 * cached, and the count is bounded (`MAX_CACHED_SEARCH_TARGETS`, oldest first out).
 *
 * A read that started before a change must not put back what the change removed: every change starts
 * a new generation, and a target read in an older one is not kept.
 */
import type { SearchTarget } from "./KnowledgeBasesRepo.js"

export const SEARCH_TARGET_TTL_MS = 2_000

export const MAX_CACHED_SEARCH_TARGETS = 10_000

interface Entry {
  readonly tenantId: string
  readonly target: SearchTarget
  readonly until: number
}

export class SearchTargetCache {
  private readonly entries = new Map<string, Entry>()
  private current = 0

  constructor(
    private readonly ttlMillis: number = SEARCH_TARGET_TTL_MS,
    private readonly capacity: number = MAX_CACHED_SEARCH_TARGETS
  ) {}

  /** Taken before reading targets; `keep` stores them only if nothing changed since. */
  get generation(): number {
    return this.current
  }

  get size(): number {
    return this.entries.size
  }

  find(tenantId: string, kbId: string, now: number): SearchTarget | undefined {
    const entry = this.entries.get(kbId)
    if (entry === undefined) return undefined
    if (entry.until <= now) {
      this.entries.delete(kbId)
      return undefined
    }
    return entry.tenantId === tenantId ? entry.target : undefined
  }

  keep(tenantId: string, target: SearchTarget, now: number, readIn: number): void {
    if (readIn !== this.current) return
    this.entries.delete(target.id)
    this.entries.set(target.id, { tenantId, target, until: now + this.ttlMillis })
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!)
  }

  forget(kbId: string): void {
    this.current++
    this.entries.delete(kbId)
  }
}
