/**
 * One policy for the cluster's transport errors on the hot path's volatile commands.
 *
 * `LiveCall.Start` (and `Wake` and `OpenMedia`, sent by the runner's timer wheel and media server) and
 * the Tenant's `Reserve`, `Extend`, `Settle` and `Release` are volatile (no message storage: a
 * persisted message costs five statements and ~1 ms of CPU). Their handlers are
 * idempotent on rows (the session's id, the reservation's id and step), and the rows are what a lost
 * command is driven again from (see docs/decisions/0018-volatile-messages-driven-from-rows.md), so sending one again
 * is always safe. What the cluster can answer instead of the handler's reply:
 *
 * - `RunnerUnavailable` and `EntityNotAssignedToRunner`: the cluster itself sends again until the
 *   entity's shard has an owner (`Sharding.sendOutgoing`); they do not reach here.
 * - `MailboxFull`, `AlreadyProcessingMessage`: the entity is busy, or the same request is in flight.
 * - An interruption as the reply: the entity's runner stopped (or moved the shard) while the
 *   command ran. Persisted commands are handed to the next owner in that case; a volatile one is
 *   answered with the interruption.
 * - `PersistenceError`: not for volatile commands, but part of every client's error type.
 *
 * All of these are sent again, after a pause that grows to `maxDelay`, for up to `attempts` sends;
 * then the last one is a defect. The send runs in a fiber of its own (see `runDetached`), so an
 * interruption of the reply is told apart from an interruption of the caller: a caller that is
 * interrupted stops waiting (and interrupts the send), and is never sent again.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Tracer from "effect/Tracer"

const TRANSPORT = new Set([
  "MailboxFull",
  "AlreadyProcessingMessage",
  "PersistenceError",
  "RunnerUnavailable",
  "EntityNotAssignedToRunner"
])

type Transport = {
  readonly _tag:
    | "MailboxFull"
    | "AlreadyProcessingMessage"
    | "PersistenceError"
    | "RunnerUnavailable"
    | "EntityNotAssignedToRunner"
}

export interface DeliverOptions {
  /** Sends at most (the first included). */
  readonly attempts?: number
  /** The first pause; each next one doubles, up to `maxDelay`. */
  readonly delay?: Duration.DurationInput
  readonly maxDelay?: Duration.DurationInput
}

const isTransport = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "_tag" in error && TRANSPORT.has((error as { _tag: string })._tag)

/** Why the send should be tried again, or undefined when its exit is the answer. */
const transientOf = <A, E>(exit: Exit.Exit<A, E>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const failure = Cause.failureOption(exit.cause)
  if (failure._tag === "Some") return isTransport(failure.value) ? (failure.value as Transport)._tag : undefined
  // interrupted with no failure or defect beside it: the reply was an interruption
  return Cause.isInterruptedOnly(exit.cause) ? "interrupted" : undefined
}

/**
 * Runs `send` in a fiber of its own that holds nothing of the caller's but the current value of
 * each `FiberRef` (its services, log annotations) and its span: not the caller's context, nor the
 * earlier values of its `FiberRef`s. An entity that the send starts is built in that fiber, or in
 * one it forks (the cluster builds an entity on its first message), and every fiber the entity
 * forks then keeps the history of the fiber that forked it for its own lifetime (its `FiberRef`
 * stacks, and the closure `Effect.forkIn` leaves in the scope). A send forked as a plain child of
 * the API's handler kept its context (the HTTP request, response and socket: ~23 KB) for as long
 * as the call it started lived. The caller's interruption interrupts the send, as for a child.
 */
const runDetached = <A, E>(send: Effect.Effect<A, E>): Effect.Effect<Exit.Exit<A, E>> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.withFiberRuntime((caller, status) => {
      const refs = caller.getFiberRefs()
      const current: Parameters<typeof FiberRefs.unsafeMake>[0] = new Map()
      for (const ref of FiberRefs.fiberRefs(refs)) {
        current.set(ref, [[
          caller.id(),
          ref === FiberRef.currentContext ? Context.empty() : FiberRefs.getOrDefault(refs, ref)
        ]])
      }
      const span = Context.getOption(caller.getFiberRef(FiberRef.currentContext), Tracer.ParentSpan)
      const context = Option.match(span, {
        onNone: () => Context.empty(),
        onSome: (s) => Context.make(Tracer.ParentSpan, s)
      })
      const runtime = Runtime.make({
        context,
        runtimeFlags: status.runtimeFlags,
        fiberRefs: FiberRefs.unsafeMake(current)
      })
      // (interruptible again: the flags are read under the mask)
      const fiber = Runtime.runFork(runtime)(Effect.interruptible(send))
      return Effect.onInterrupt(restore(Fiber.await(fiber)), () => Fiber.interrupt(fiber))
    })
  )

/**
 * Sends a volatile, idempotent command until it is answered: see the module's comment. The
 * transport errors leave the error type; what the handler fails with stays. The command needs no
 * service from the context (an entity client's does not): it runs apart from the caller's.
 */
export const deliver = <A, E>(
  send: Effect.Effect<A, E>,
  options: DeliverOptions = {}
): Effect.Effect<A, Exclude<E, Transport>> => {
  const attempts = options.attempts ?? 60
  const first = Duration.toMillis(Duration.decode(options.delay ?? "50 millis"))
  const cap = Duration.toMillis(Duration.decode(options.maxDelay ?? "2 seconds"))
  const loop = (n: number): Effect.Effect<A, Exclude<E, Transport>> =>
    Effect.flatMap(runDetached(send), (exit) => {
      const transient = transientOf(exit)
      if (transient === undefined) return exit as Exit.Exit<A, Exclude<E, Transport>>
      if (n >= attempts) {
        return Effect.dieMessage(`a volatile command was not answered after ${attempts} sends (last: ${transient})`)
      }
      return Effect.logDebug(`volatile command not answered (${transient}): sending again`).pipe(
        Effect.zipRight(Effect.sleep(Math.min(cap, first * 2 ** (n - 1)))),
        Effect.zipRight(loop(n + 1))
      )
    })
  return loop(1)
}
