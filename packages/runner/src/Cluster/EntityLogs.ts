/**
 * Log lines written by an entity carry its address (`entity`: `Type/id`, `shard`: `group:n`).
 *
 * An entity's handlers run in the RPC server's fibers, not in the fiber that built the entity, so
 * annotating the build alone would miss them: `withEntityLogs` annotates the build's fiber (and so
 * every fiber it forks, such as timers) for the entity's lifetime, and wraps each handler.
 */
import * as Entity from "@effect/cluster/Entity"
import type { EntityAddress } from "@effect/cluster/EntityAddress"
import * as Effect from "effect/Effect"

export const entityLabel = (address: EntityAddress): string => `${address.entityType}/${address.entityId}`

const annotationsOf = (address: EntityAddress) => ({
  entity: entityLabel(address),
  shard: `${address.shardId.group}:${address.shardId.id}`
})

/** Annotates the rest of the entity's build (and what it forks), and returns a handler wrapper. */
export const withEntityLogs = Effect.gen(function*() {
  const address = yield* Entity.CurrentAddress
  const annotations = annotationsOf(address)
  yield* Effect.annotateLogsScoped(annotations)
  return <H extends object>(handlers: H): H =>
    Object.fromEntries(
      Object.entries(handlers).map(([name, handler]) => [
        name,
        typeof handler === "function"
          ? (...args: Array<unknown>) => {
            const result = handler(...args)
            return Effect.isEffect(result) ? Effect.annotateLogs(result, annotations) : result
          }
          : handler
      ])
    ) as H
})
