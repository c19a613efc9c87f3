import { MailboxFull } from "@effect/cluster/ClusterError"
import * as EntityAddress from "@effect/cluster/EntityAddress"
import * as EntityId from "@effect/cluster/EntityId"
import type * as EntityType from "@effect/cluster/EntityType"
import * as ShardId from "@effect/cluster/ShardId"
import { assert, describe, it } from "@effect/vitest"
import { deliver } from "@voiceagent/runner/Cluster/Deliver"
import { Cause, Data, Deferred, Effect, Exit, Fiber, Ref, TestClock } from "effect"

class Refused extends Data.TaggedError("Refused")<{}> {}

/** A send whose n-th try answers `answers[n]` (the last one from then on), counting the tries. */
const scripted = <A>(answers: ReadonlyArray<Effect.Effect<A, MailboxFull | Refused>>) =>
  Effect.map(Ref.make(0), (tries) => ({
    tries,
    send: Effect.flatMap(Ref.getAndUpdate(tries, (n) => n + 1), (n) => answers[Math.min(n, answers.length - 1)]!)
  }))

const mailboxFull = Effect.fail(
  new MailboxFull({
    address: EntityAddress.make({
      shardId: ShardId.make("default", 1),
      entityType: "Tenant" as EntityType.EntityType,
      entityId: EntityId.make("t")
    })
  })
)

describe("Deliver.deliver: one policy for the cluster's transport errors", () => {
  it.effect(
    "a busy mailbox and an interruption as the reply are sent again, after growing pauses, until answered",
    () =>
      Effect.gen(function*() {
        const { send, tries } = yield* scripted<string>([mailboxFull, Effect.interrupt, Effect.succeed("answered")])
        const fiber = yield* Effect.fork(deliver(send, { delay: "100 millis", maxDelay: "1 second" }))
        yield* TestClock.adjust("100 millis")
        assert.strictEqual(yield* Ref.get(tries), 2)
        // the second pause is twice the first
        yield* TestClock.adjust("100 millis")
        assert.strictEqual(yield* Ref.get(tries), 2)
        yield* TestClock.adjust("100 millis")
        assert.strictEqual(yield* Fiber.join(fiber), "answered")
        assert.strictEqual(yield* Ref.get(tries), 3)
      })
  )

  it.effect("what the handler fails with is the answer: not sent again", () =>
    Effect.gen(function*() {
      const { send, tries } = yield* scripted<string>([Effect.fail(new Refused())])
      const exit = yield* Effect.exit(deliver(send))
      assert.deepStrictEqual(exit, Exit.fail(new Refused()))
      assert.strictEqual(yield* Ref.get(tries), 1)
    }))

  it.effect("a caller that is interrupted stops waiting, and nothing is sent again", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const tries = yield* Ref.make(0)
      const send = Ref.update(tries, (n) => n + 1).pipe(
        Effect.zipRight(Deferred.succeed(started, undefined)),
        Effect.zipRight(Effect.never)
      )
      const fiber = yield* Effect.fork(deliver(send))
      yield* Deferred.await(started)
      const exit = yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.isInterrupted(exit))
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* Ref.get(tries), 1)
    }))

  it.effect("never answered: a defect after the last try", () =>
    Effect.gen(function*() {
      const { send, tries } = yield* scripted<string>([mailboxFull])
      const fiber = yield* Effect.fork(
        Effect.exit(deliver(send, { attempts: 4, delay: "10 millis", maxDelay: "10 millis" }))
      )
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.join(fiber)
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
      assert.strictEqual(yield* Ref.get(tries), 4)
    }))
})
