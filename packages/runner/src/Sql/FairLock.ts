/**
 * A first-come, first-served mutual-exclusion lock.
 *
 * Effect's `Semaphore` lets a newcomer take a permit that was just released before the waiter it
 * woke gets to run, and the waiter then queues again at the back: under steady contention an
 * early waiter can starve for seconds. PGlite's session lock is contended by every statement of
 * the process, so it hands the lock over directly to the oldest waiter instead.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"

export interface FairLock {
  /** Waits for the lock (interruptible while waiting). */
  readonly take: Effect.Effect<void>
  /** Gives the lock to the oldest waiter, or frees it. */
  readonly release: Effect.Effect<void>
  /** Runs `effect` holding the lock. */
  readonly withLock: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Fibers waiting for the lock. */
  readonly waiting: () => number
}

interface Waiter {
  readonly deferred: Deferred.Deferred<void>
  state: "waiting" | "granted" | "cancelled"
}

export const unsafeMake = (): FairLock => {
  let held = false
  // a FIFO of waiters; `head` avoids shifting the array on every hand-over
  let queue: Array<Waiter | undefined> = []
  let head = 0

  const handOver = () => {
    while (head < queue.length) {
      const next = queue[head]!
      queue[head++] = undefined
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head)
        head = 0
      }
      if (next.state === "waiting") {
        // the lock stays held: it passes straight to the oldest waiter, so nobody can barge in
        next.state = "granted"
        Deferred.unsafeDone(next.deferred, Exit.void)
        return
      }
    }
    held = false
  }

  const take: Effect.Effect<void> = Effect.suspend(() => {
    if (!held) {
      held = true
      return Effect.void
    }
    const waiter: Waiter = { deferred: Deferred.unsafeMake<void>(FiberId.none), state: "waiting" }
    queue.push(waiter)
    return Deferred.await(waiter.deferred).pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          // interrupted while waiting: leave the queue; handed the lock meanwhile: pass it on
          if (waiter.state === "granted") handOver()
          else waiter.state = "cancelled"
        })
      )
    )
  })

  const release = Effect.sync(handOver)

  return {
    take,
    release,
    withLock: (effect) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(restore(take), Effect.ensuring(restore(effect), release))
      ),
    waiting: () => queue.slice(head).filter((w) => w?.state === "waiting").length
  }
}

export const make: Effect.Effect<FairLock> = Effect.sync(unsafeMake)
