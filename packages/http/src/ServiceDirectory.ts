import type * as HttpApp from "@effect/platform/HttpApp"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"

/**
 * A service running in this process: its app (request context and rules included, as its server
 * runs it) and the context its server runs it with. The gateway of the `start` role hands it
 * requests without a socket between them.
 */
export interface LocalService {
  readonly app: HttpApp.Default<never, unknown>
  readonly context: Context.Context<never>
}

/**
 * Where each HTTP service listens. Services register their bound address when they start (so tests
 * can use port 0); the gateway role alone is given the addresses by configuration. A service in the
 * same process also registers itself (`registerLocal`), for as long as its server runs.
 */
export class ServiceDirectory extends Context.Tag("Http/ServiceDirectory")<ServiceDirectory, {
  readonly register: (service: string, baseUrl: string) => Effect.Effect<void>
  readonly lookup: (service: string) => Effect.Effect<Option.Option<string>>
  readonly all: Effect.Effect<ReadonlyMap<string, string>>
  readonly registerLocal: (service: string, local: LocalService) => Effect.Effect<void, never, Scope.Scope>
  /** The service in this process, if it runs here (synchronous: the gateway asks on every request). */
  readonly local: (service: string) => LocalService | undefined
}>() {
  static readonly make = (initial: Readonly<Record<string, string>> = {}) =>
    Layer.sync(ServiceDirectory, () => {
      const urls = new Map(Object.entries(initial))
      const locals = new Map<string, LocalService>()
      return {
        register: (service, baseUrl) => Effect.sync(() => void urls.set(service, baseUrl)),
        lookup: (service) => Effect.sync(() => Option.fromNullable(urls.get(service))),
        all: Effect.sync(() => new Map(urls)),
        registerLocal: (service, local) =>
          Effect.acquireRelease(
            Effect.sync(() => void locals.set(service, local)),
            () => Effect.sync(() => void (locals.get(service) === local && locals.delete(service)))
          ),
        local: (service) => locals.get(service)
      }
    })
}
