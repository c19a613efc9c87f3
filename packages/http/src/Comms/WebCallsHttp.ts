/**
 * Web calls on the comms service: minting a call and its stream token (`POST /channels/web/call`),
 * and taking the call's stream when the client opens it (`/api/v1/channels/web/stream/{sessionId}`,
 * through the gateway): handed to the runner in this process when the call runs here, else
 * forwarded to the media server of the runner that owns the call, which checks the token.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { LiveCallEntity } from "@voiceagent/domain/Calls"
import { CommsApi } from "@voiceagent/domain/CommsApi"
import {
  sessionOfStreamPath,
  WEB_CALL_STREAM_PATH,
  webCallStreamPath,
  WebCallTicket
} from "@voiceagent/domain/WebCalls"
import { Calls } from "@voiceagent/runner/Calls/Calls"
import { LocalMedia } from "@voiceagent/runner/Voice/Media"
import { refuseWebSocket, WebStreams } from "@voiceagent/runner/Voice/WebMedia"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { PublicUrl } from "../PublicUrl.js"
import {
  isWebSocketUpgrade,
  pathOfUrl,
  refuseUpgrade,
  requestIdOf,
  tunnel,
  type UpgradeHandler
} from "../WebSockets.js"

/** The WebSocket origin of an `http(s)://` base URL. */
export const webSocketOrigin = (base: string) => new URL(base).origin.replace(/^http/, "ws")

export const WebCallsHttpLive = HttpApiBuilder.group(CommsApi, "webCalls", (handlers) =>
  Effect.gen(function*() {
    const calls = yield* Calls
    const publicUrl = yield* PublicUrl
    return handlers.handle("startWebCall", ({ payload }) =>
      Effect.gen(function*() {
        const { tenantId } = yield* CurrentTenant
        const started = yield* calls.startWeb(tenantId, payload)
        return new WebCallTicket({
          sessionId: started.sessionId,
          url: `${webSocketOrigin(yield* publicUrl.get)}${webCallStreamPath(started.sessionId)}`,
          token: started.token,
          expiresAt: new Date(started.expiresAt)
        })
      }))
  }))

/**
 * The comms service's WebSockets: web calls' streams. A stream for a call this process runs is taken
 * here; any other is forwarded to the media server of the runner that owns its call. A stream for no
 * web call that waits (unknown, over, a phone call) is opened only to be closed with 1008 and why.
 */
export const webCallStreams = Effect.gen(function*() {
  const calls = yield* LiveCallEntity.client
  const local = yield* Effect.serviceOption(LocalMedia)
  const streams = yield* Effect.serviceOption(WebStreams)
  const runtime = yield* Effect.runtime<never>()
  const handler: UpgradeHandler = (request, socket, head) => {
    const path = pathOfUrl(request.url)
    if (
      !isWebSocketUpgrade(request) || !(path === WEB_CALL_STREAM_PATH || path.startsWith(`${WEB_CALL_STREAM_PATH}/`))
    ) {
      return refuseUpgrade(request, socket, `${WEB_CALL_STREAM_PATH}/{sessionId}`)
    }
    const sessionId = sessionOfStreamPath(path)
    if (sessionId === undefined) return refuseWebSocket(request, socket, head, 1008, "not a web call's stream")
    if (Option.isSome(local) && Option.isSome(streams) && local.value.has(sessionId)) {
      return streams.value.handleUpgrade(request, socket, head, sessionId)
    }
    const requestId = requestIdOf(request)
    Runtime.runFork(runtime)(
      calls(sessionId).WebStreamAddress().pipe(
        Effect.timeout("5 seconds"),
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logWarning("a web call's stream could not be routed", cause), null)
        ),
        Effect.flatMap((address) =>
          Effect.sync(() =>
            address === null
              ? refuseWebSocket(request, socket, head, 1008, "no web call waits for this stream")
              : tunnel(request, socket, head, address, requestId)
          )
        )
      )
    )
  }
  return handler
})
