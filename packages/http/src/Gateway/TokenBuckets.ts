/**
 * Token buckets, one per identity, in bounded memory. Pure and synchronous: the caller passes the
 * time, so a check and its update are one step (no interleaving between requests) and tests run on
 * `TestClock`.
 *
 * A bucket holds up to `burst` tokens and gains `perSecond` a second; a request takes one. A full
 * bucket behaves exactly like a missing one (a new identity starts full), so full buckets are
 * forgotten: each `take` drops the least recently used ones if they have refilled, and beyond
 * `maxBuckets` the least recently used is dropped whatever its level (its owner starts afresh).
 */

export interface RateLimit {
  /** Tokens gained per second: the sustained rate. */
  readonly perSecond: number
  /** Capacity: requests allowed at once after a quiet period. */
  readonly burst: number
}

export interface Verdict {
  readonly allowed: boolean
  /** The bucket's capacity. */
  readonly limit: number
  /** Whole tokens left after this request. */
  readonly remaining: number
  /** Whole seconds until the bucket is full again. */
  readonly resetSeconds: number
  /** Whole seconds until a refused request would be allowed (0 when allowed). */
  readonly retryAfterSeconds: number
}

interface Bucket {
  readonly tokens: number
  readonly at: number
}

/** How many of the oldest buckets each `take` looks at for ones that have refilled. */
const SWEEP_PER_TAKE = 2
// A refilled bucket computed with floating point may sit a hair below `burst`.
const EPSILON = 1e-9

export class TokenBuckets {
  // A Map iterates in insertion order: re-inserting on every use keeps it least recently used first.
  private readonly buckets = new Map<string, Bucket>()

  constructor(readonly limit: RateLimit, readonly maxBuckets: number) {
    if (!(limit.perSecond > 0) || !(limit.burst >= 1) || !(maxBuckets >= 1)) {
      throw new Error(`invalid token buckets: ${JSON.stringify({ ...limit, maxBuckets })}`)
    }
  }

  get size(): number {
    return this.buckets.size
  }

  has(id: string): boolean {
    return this.buckets.has(id)
  }

  delete(id: string): void {
    this.buckets.delete(id)
  }

  /** Takes a token from `id`'s bucket at `now` (milliseconds) if it has one. */
  take(id: string, now: number): Verdict {
    const tokens = this.levelOf(this.buckets.get(id), now)
    this.buckets.delete(id)
    this.sweep(now)
    const allowed = tokens >= 1 - EPSILON
    const left = allowed ? Math.max(0, tokens - 1) : tokens
    this.buckets.set(id, { tokens: left, at: now })
    while (this.buckets.size > this.maxBuckets) {
      this.buckets.delete(this.buckets.keys().next().value!)
    }
    return this.verdict(allowed, left)
  }

  private levelOf(bucket: Bucket | undefined, now: number): number {
    if (bucket === undefined) return this.limit.burst
    const elapsed = Math.max(0, now - bucket.at) / 1000
    return Math.min(this.limit.burst, bucket.tokens + elapsed * this.limit.perSecond)
  }

  private sweep(now: number): void {
    let looked = 0
    for (const [id, bucket] of this.buckets) {
      if (looked++ >= SWEEP_PER_TAKE) return
      if (this.levelOf(bucket, now) >= this.limit.burst - EPSILON) this.buckets.delete(id)
    }
  }

  private verdict(allowed: boolean, tokens: number): Verdict {
    const { burst, perSecond } = this.limit
    const seconds = (missing: number) => Math.max(0, Math.ceil(missing / perSecond - EPSILON))
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(tokens + EPSILON),
      resetSeconds: seconds(burst - tokens),
      retryAfterSeconds: allowed ? 0 : Math.max(1, seconds(1 - tokens))
    }
  }
}
