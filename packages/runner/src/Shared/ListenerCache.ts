/**
 * What the call-ended listeners look up on every call's end (a tenant's webhook keys, an agent's
 * messaging campaigns), cached per process so that a call end costs no lookup when nothing changed.
 *
 * Invalidation is per tenant. In this process it is immediate: the repositories that write those rows
 * (`ApiKeysRepo`, `MessagingCampaigns`, `AgentsRepo`) call `invalidate` once their statement is done.
 * Another process's writes are seen within `LISTENER_CACHE_TTL` (5 s), as is a write made inside a
 * longer transaction whose commit comes after a reload. Module state, not a service: the HTTP
 * services and the runtime build their own repositories, and must still share one cache.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** How long a cached lookup is used at most (bounds staleness from other processes' writes). */
export const LISTENER_CACHE_TTL_MILLIS = 5_000

/** Entries kept at most; beyond, the cache starts again empty (a fresh lookup per key). */
const MAX_ENTRIES = 10_000

interface Entry {
  readonly value: unknown
  readonly loadedAt: number
  readonly generation: number
}

const entries = new Map<string, Entry>()
const generations = new Map<string, number>()
let epoch = 0

const generationOf = (tenantId: string) => epoch + (generations.get(tenantId) ?? 0)

/** Forgets what is cached for the tenant: the next lookup reads the database. */
export const invalidate = (tenantId: string): Effect.Effect<void> =>
  Effect.sync(() => void generations.set(tenantId, (generations.get(tenantId) ?? 0) + 1))

/** Forgets everything (a write whose tenant is not known). */
export const invalidateAll: Effect.Effect<void> = Effect.sync(() => {
  epoch++
  entries.clear()
})

/**
 * `load`'s answer for `(tenantId, key)`, from the cache while it is fresh. A lookup that started
 * before an invalidation is not kept, so it cannot hide the write that invalidated it.
 */
export const cached = <A, E, R>(tenantId: string, key: string, load: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const id = `${tenantId}:${key}`
    const generation = generationOf(tenantId)
    const hit = entries.get(id)
    if (
      hit !== undefined && hit.generation === generation && now - hit.loadedAt < LISTENER_CACHE_TTL_MILLIS &&
      now >= hit.loadedAt
    ) {
      return Effect.succeed(hit.value as A)
    }
    return Effect.tap(load, (value) =>
      Effect.sync(() => {
        if (generationOf(tenantId) !== generation) return
        if (entries.size >= MAX_ENTRIES) entries.clear()
        entries.set(id, { value, loadedAt: now, generation })
      }))
  })
