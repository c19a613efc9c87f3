import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * Where each HTTP service listens. Services register their bound address when they start (so tests
 * can use port 0); the gateway role alone is given the addresses by configuration.
 */
export class ServiceDirectory extends Context.Tag("Http/ServiceDirectory")<ServiceDirectory, {
  readonly register: (service: string, baseUrl: string) => Effect.Effect<void>
  readonly lookup: (service: string) => Effect.Effect<Option.Option<string>>
  readonly all: Effect.Effect<ReadonlyMap<string, string>>
}>() {
  static readonly make = (initial: Readonly<Record<string, string>> = {}) =>
    Layer.sync(ServiceDirectory, () => {
      const urls = new Map(Object.entries(initial))
      return {
        register: (service, baseUrl) => Effect.sync(() => void urls.set(service, baseUrl)),
        lookup: (service) => Effect.sync(() => Option.fromNullable(urls.get(service))),
        all: Effect.sync(() => new Map(urls))
      }
    })
}
