import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { PlatformCoreApi } from "@voiceagent/domain/PlatformCoreApi"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { CoreAgentsHttpLive } from "../Comms/AgentsHttp.js"
import { makeHealth } from "../Health.js"
import { ApiKeysHttpLive } from "./ApiKeysHttp.js"
import { AuthHttpLive } from "./AuthHttp.js"
import { ProfileHttpLive } from "./ProfileHttp.js"
import { TopUpsHttpLive, WalletHttpLive } from "./WalletHttp.js"

const HealthLive = HttpApiBuilder.group(
  PlatformCoreApi,
  "health",
  (handlers) =>
    Effect.map(
      makeHealth("platform-core"),
      (health) => handlers.handle("healthz", () => health.alive).handle("readyz", () => health.ready)
    )
)

export const PlatformCoreHttpLive = HttpApiBuilder.api(PlatformCoreApi).pipe(
  Layer.provide([
    HealthLive,
    AuthHttpLive,
    ProfileHttpLive,
    ApiKeysHttpLive,
    CoreAgentsHttpLive,
    WalletHttpLive,
    TopUpsHttpLive
  ])
)
