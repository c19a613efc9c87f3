/**
 * Group commit for one kind of write: what is submitted while a write runs waits for the next one,
 * which takes everything pending (up to `maxBatch`) in one call of `write`. A caller waits for the
 * write that carried its item. When a batch fails, its items are written again one at a time, so
 * only an item whose own write fails gets the failure (as a defect).
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

export interface GroupCommit<A> {
  readonly submit: (item: A) => Effect.Effect<void>
}

export const make = <A, E>(
  name: string,
  write: (items: ReadonlyArray<A>) => Effect.Effect<void, E>,
  options: { readonly maxBatch?: number } = {}
): Effect.Effect<GroupCommit<A>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const maxBatch = options.maxBatch ?? 500
    const queue = yield* Queue.unbounded<readonly [A, Deferred.Deferred<void>]>()

    const writeAll = (batch: ReadonlyArray<readonly [A, Deferred.Deferred<void>]>): Effect.Effect<void> =>
      Effect.flatMap(Effect.exit(write(batch.map(([item]) => item))), (exit) => {
        if (Exit.isSuccess(exit)) {
          return Effect.forEach(batch, ([, done]) => Deferred.succeed(done, undefined), { discard: true })
        }
        if (batch.length === 1) return Deferred.die(batch[0]![1], Cause.squash(exit.cause))
        return Effect.logWarning(`${name}: a batch of ${batch.length} failed; writing them one at a time`, exit.cause)
          .pipe(
            Effect.zipRight(Effect.forEach(batch, (one) => writeAll([one]), { discard: true }))
          )
      })

    yield* Effect.gen(function*() {
      for (;;) {
        const first = yield* Queue.take(queue)
        const rest = yield* Queue.takeUpTo(queue, maxBatch - 1)
        yield* writeAll([first, ...rest])
      }
    }).pipe(Effect.forkScoped)

    return {
      submit: (item: A) =>
        Effect.flatMap(Deferred.make<void>(), (done) =>
          Effect.zipRight(Queue.offer(queue, [item, done]), Deferred.await(done)))
    }
  })
