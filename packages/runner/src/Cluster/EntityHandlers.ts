/**
 * What every entity of the platform does around each of its handlers:
 *
 * - Log lines carry the entity's address (`entity`: `Type/id`, `shard`: `group:n`). Handlers run in
 *   the RPC server's fibers, not in the fiber that built the entity, so the build's fiber (and what
 *   it forks, such as timers) is annotated for the entity's lifetime and each handler is wrapped.
 * - A defect is tried again, a bounded number of times. Left to the cluster, a message whose
 *   handler dies restarts its entity and is delivered again, forever, while its caller waits (a
 *   string PostgreSQL refused did exactly that). An outage (the database unreachable, a deadlock,
 *   the cluster's own storage) is waited out with backoff; any other defect gets
 *   `MAX_DELIVERIES` tries, then the message is recorded in `dead_letters` and answered with the
 *   defect, so the caller gets an error and the message is not delivered again. Entities built
 *   with these handlers set `disableFatalDefects`, which is what lets a defect be an answer.
 */
import * as Entity from "@effect/cluster/Entity"
import type { EntityAddress } from "@effect/cluster/EntityAddress"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { DeadLetters, storable } from "./DeadLetters.js"

export const entityLabel = (address: EntityAddress): string => `${address.entityType}/${address.entityId}`

const annotationsOf = (address: EntityAddress) => ({
  entity: entityLabel(address),
  shard: `${address.shardId.group}:${address.shardId.id}`
})

/** Deliveries of a message whose handler dies (other than in an outage) before it is given up. */
export const MAX_DELIVERIES = 3

/** The pause before try `n + 1` (n ≥ 1): 0.5 s, 2 s, 8 s, … at most 10 s. */
export const retryDelay = (n: number): Duration.Duration => Duration.millis(Math.min(10_000, 500 * 4 ** (n - 1)))

// PostgreSQL's classes of errors that pass: connection (08), resources (53), operator intervention
// (57), transaction rollback (40: serialization failures, deadlocks), lock not available (55P03)
const TRANSIENT_SQLSTATE = /^(08|53|57|40)|^55P03$/
const TRANSIENT_ERRNO = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH"
])
// the cluster's own failures, turned into defects by handlers that cannot act on them
const TRANSIENT_TAGS = new Set([
  "PersistenceError",
  "MailboxFull",
  "AlreadyProcessingMessage",
  "EntityNotAssignedToRunner",
  "RunnerUnavailable",
  "RunnerNotRegistered"
])

/** Whether a defect is an outage that will pass, rather than something a new try cannot change. */
export const isOutage = (defect: unknown): boolean => {
  if (!Predicate.isObject(defect)) return false
  const tag = (defect as { _tag?: unknown })._tag
  if (typeof tag === "string" && TRANSIENT_TAGS.has(tag)) return true
  if (tag === "SqlError") {
    const cause = (defect as { cause?: unknown }).cause
    const code = Predicate.isObject(cause) ? (cause as { code?: unknown }).code : undefined
    if (typeof code === "string") return TRANSIENT_SQLSTATE.test(code) || TRANSIENT_ERRNO.has(code)
    const message = Predicate.isObject(cause) ? String((cause as { message?: unknown }).message ?? "") : ""
    return /connection|terminat|timeout/i.test(message)
  }
  return false
}

/** The cause as an operator reads it: the pretty cause, and what each defect wraps (a database's code and message). */
const describeCause = (cause: Cause.Cause<unknown>): string => {
  const wrapped = [...Cause.defects(cause)].flatMap((defect) => {
    const inner = Predicate.isObject(defect) ? (defect as { cause?: unknown }).cause : undefined
    if (!Predicate.isObject(inner)) return []
    const { code, message } = inner as { code?: unknown; message?: unknown }
    return [`caused by: ${[code, message].filter((p) => p !== undefined).map(String).join(" ")}`]
  })
  return [...wrapped, Cause.pretty(cause)].join("\n")
}

/** Annotates the rest of the entity's build (and what it forks), and returns the handler wrapper. */
export const withEntityHandlers = Effect.gen(function*() {
  const address = yield* Entity.CurrentAddress
  const runner = yield* Effect.serviceOption(Entity.CurrentRunnerAddress)
  const deadLetters = yield* DeadLetters
  const annotations = annotationsOf(address)
  yield* Effect.annotateLogsScoped(annotations)

  const deliver = <A, E, R>(rpc: string, request: unknown, handle: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const attempt = (n: number, outages: number): Effect.Effect<A, E, R> =>
      handle.pipe(Effect.catchAllCause((cause) => {
        const defects = [...Cause.defects(cause)]
        if (defects.length === 0 || Cause.isInterrupted(cause)) return Effect.failCause(cause)
        if (defects.every(isOutage)) {
          return Effect.logWarning(`${rpc}: an outage; trying again`, cause).pipe(
            Effect.zipRight(Effect.sleep(retryDelay(outages + 1))),
            Effect.zipRight(attempt(n, outages + 1))
          )
        }
        if (n < MAX_DELIVERIES) {
          return Effect.logWarning(`${rpc} died (try ${n} of ${MAX_DELIVERIES}); trying again`, cause).pipe(
            Effect.zipRight(Effect.sleep(retryDelay(n))),
            Effect.zipRight(attempt(n + 1, outages))
          )
        }
        return Effect.gen(function*() {
          const message = request as { readonly requestId?: unknown; readonly payload?: unknown }
          yield* deadLetters.record({
            entityType: address.entityType,
            entityId: address.entityId,
            rpc,
            requestId: String(message.requestId ?? "unknown"),
            payload: message.payload ?? null,
            cause: storable(describeCause(cause)),
            attempts: n,
            runner: Option.match(runner, { onNone: () => null, onSome: (r) => `${r.host}:${r.port}` }),
            at: yield* Clock.currentTimeMillis
          }).pipe(Effect.orDie)
          yield* Effect.logError(`${rpc} failed on all ${n} deliveries: recorded in dead_letters and answered`, cause)
          return yield* Effect.failCause(cause)
        })
      }))
    return attempt(1, 0)
  }

  return <H extends object>(handlers: H): H =>
    Object.fromEntries(
      Object.entries(handlers).map(([name, handler]) => [
        name,
        typeof handler === "function"
          ? (request: unknown, ...rest: Array<unknown>) => {
            const result = handler(request, ...rest)
            return Effect.isEffect(result) ? Effect.annotateLogs(deliver(name, request, result), annotations) : result
          }
          : handler
      ])
    ) as H
})
