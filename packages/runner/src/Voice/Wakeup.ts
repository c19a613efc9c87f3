/**
 * A fiber's wake-up: it waits until something changed (`raise`, synchronous, from anywhere) or, at
 * the latest, until a time on the Clock. The playout pacer and the simulated caller wait this way
 * on every chunk of the agent's audio.
 *
 * Cheap on purpose: a wait is one `Effect.async` (no queue, whose wait costs some 11 KB of garbage),
 * and the time is kept by one alarm fiber for the wakeup's life, which sleeps on the Clock (so it
 * runs under `TestClock`) until the current wait's deadline, rather than a timer fiber forked and
 * interrupted for each wait (15 KB). A wait whose deadline comes before the alarm's current sleep ends
 * (rare: deadlines mostly move forward) gets a timer fiber of its own. A wait may end early, when
 * raised or when the alarm of an earlier wait goes off: the waiter looks again and waits again.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

export interface Wakeup {
  /** Wakes the waiting fiber, or makes its next wait return at once. */
  readonly raise: () => void
  /** Until raised. */
  readonly wait: Effect.Effect<void>
  /** Until raised, or until `at` (ms on the Clock) at the latest. */
  readonly waitUntil: (at: number) => Effect.Effect<void>
}

export const makeWakeup: Effect.Effect<Wakeup, never, Scope.Scope> = Effect.gen(function*() {
  const clock = yield* Effect.clock
  let raised = false
  let waiter: ((done: Effect.Effect<void>) => void) | undefined
  const raise = () => {
    const resume = waiter
    if (resume === undefined) {
      raised = true
      return
    }
    waiter = undefined
    resume(Effect.void)
  }
  const wait: Effect.Effect<void> = Effect.suspend(() => {
    if (raised) {
      raised = false
      return Effect.void
    }
    return Effect.async<void>((resume) => {
      waiter = resume
      return Effect.sync(() => {
        if (waiter === resume) waiter = undefined
      })
    })
  })

  /** The current wait's deadline, and when the alarm's sleep ends (undefined: it waits for a deadline). */
  let deadline: number | undefined
  let sleepsUntil: number | undefined
  let idle: ((done: Effect.Effect<void>) => void) | undefined
  const alarm = Effect.gen(function*() {
    for (;;) {
      if (deadline === undefined) {
        yield* Effect.async<void>((resume) => {
          idle = resume
          return Effect.sync(() => {
            if (idle === resume) idle = undefined
          })
        })
        continue
      }
      const t = clock.unsafeCurrentTimeMillis()
      if (deadline <= t) {
        deadline = undefined
        raise()
        continue
      }
      sleepsUntil = deadline
      yield* clock.sleep(Duration.millis(deadline - t))
      sleepsUntil = undefined
    }
  })
  yield* Effect.forkScoped(alarm)
  const clearDeadline = (at: number) =>
    Effect.sync(() => {
      if (deadline === at) deadline = undefined
    })

  const waitUntil = (at: number): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (raised) {
        raised = false
        return Effect.void
      }
      if (at <= clock.unsafeCurrentTimeMillis()) return Effect.void
      if (sleepsUntil !== undefined && sleepsUntil > at) {
        // the alarm sleeps past this deadline: a timer of its own
        const timer = Effect.zipRight(
          clock.sleep(Duration.millis(at - clock.unsafeCurrentTimeMillis())),
          Effect.sync(raise)
        )
        return Effect.flatMap(Effect.fork(timer), (fiber) =>
          Effect.zipRight(wait, Effect.fiberIdWith((self) => fiber.interruptAsFork(self))))
      }
      deadline = at
      const wakeAlarm = idle
      if (wakeAlarm !== undefined) {
        idle = undefined
        wakeAlarm(Effect.void)
      }
      return Effect.zipRight(wait, clearDeadline(at))
    })

  return { raise, wait, waitUntil }
})
