import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ServiceDirectory } from "./ServiceDirectory.js"

/**
 * The platform's public base URL, for addresses handed to third parties (webhook URLs).
 * `PUBLIC_URL` when configured, else the gateway this process started.
 */
export class PublicUrl extends Context.Tag("Http/PublicUrl")<PublicUrl, { readonly get: Effect.Effect<string> }>() {
  static readonly layer = (configured: string | undefined) =>
    Layer.effect(
      PublicUrl,
      Effect.map(ServiceDirectory, (directory) => ({
        get: configured !== undefined
          ? Effect.succeed(configured)
          : Effect.map(directory.lookup("gateway"), Option.getOrElse(() => "http://localhost:3000"))
      }))
    )
}
