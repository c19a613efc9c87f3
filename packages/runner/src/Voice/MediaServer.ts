/**
 * The runner's media server: where carriers open the media streams of the calls this process owns
 * (`MEDIA_PORT`; carriers reach it at `MEDIA_PUBLIC_URL`, which every runner sets to its own public
 * address). Streams are checked by `TwilioMedia` (at `/media/twilio`) or `TelnyxMedia` (at
 * `/media/telnyx`) and handed to the call's conversation through `LocalMedia`. Tokens are signed
 * with a key of this process: a stream is only ever accepted by the process whose call made the token.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import * as crypto from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { WebSocketServer } from "ws"
import { LocalMedia, signMediaToken } from "./Media.js"
import { serveTelnyxStream, TELNYX_MEDIA_PATH, TOKEN_HEADER as TELNYX_TOKEN_HEADER } from "./TelnyxMedia.js"
import { serveTwilioStream, TWILIO_MEDIA_PATH } from "./TwilioMedia.js"
import { WEB_MEDIA_PATH, WebStreams } from "./WebMedia.js"

export interface MediaServerOptions {
  readonly host: string
  /** 0 picks a free port. */
  readonly port: number
  /** The `ws(s)://` origin carriers reach this server at (default: `ws://<advertisedHost>:<bound port>`). */
  readonly publicUrl?: string | undefined
  /** The host others reach this process at, when no public URL is given (default: the bound address). */
  readonly advertisedHost?: string | undefined
}

/** How long a stream token is good for: a call is answered and its stream opened within this. */
export const TOKEN_LIFETIME_MS = 5 * 60_000

export class MediaServer extends Context.Tag("Voice/MediaServer")<MediaServer, {
  /** The `wss://…/media/twilio` URL of this process's Twilio streams. */
  readonly twilioStreamUrl: string
  /** A one-use stream token for a call of this process, valid `TOKEN_LIFETIME_MS`. */
  readonly tokenFor: (sessionId: string) => Effect.Effect<string>
  /**
   * Where a web call's stream reaches this process (`/media/web/{sessionId}`), for the service that
   * forwards it from the platform's origin: this process's own address, not `MEDIA_PUBLIC_URL`.
   */
  readonly webStreamUrl: (sessionId: string) => string
}>() {
  static readonly layer = (options: MediaServerOptions) =>
    Layer.scoped(
      MediaServer,
      Effect.gen(function*() {
        const local = yield* LocalMedia
        const web = yield* Effect.serviceOption(WebStreams)
        const runtime = yield* Effect.runtime<never>()
        const secret = Redacted.make(crypto.randomBytes(32).toString("base64url"))
        const used = new Map<string, number>()
        const log = (message: string, annotations: Record<string, unknown>) =>
          Runtime.runFork(runtime)(Effect.logWarning(message).pipe(Effect.annotateLogs(annotations)))
        const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 })
        const server = http.createServer((_, response) => response.writeHead(404).end())
        server.on("upgrade", (request, socket, head) => {
          const path = (request.url ?? "").split("?")[0] ?? ""
          if (path.startsWith(`${WEB_MEDIA_PATH}/`) && Option.isSome(web)) {
            return web.value.handleUpgrade(request, socket, head, path.slice(WEB_MEDIA_PATH.length + 1))
          }
          if (path !== TWILIO_MEDIA_PATH && path !== TELNYX_MEDIA_PATH) {
            socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n")
            return
          }
          const common = { secret, used, runtime, log, attach: local.attach }
          const header = request.headers[TELNYX_TOKEN_HEADER]
          wss.handleUpgrade(request, socket, head, (ws) =>
            path === TELNYX_MEDIA_PATH
              ? serveTelnyxStream(ws, { ...common, headerToken: typeof header === "string" ? header : undefined })
              : serveTwilioStream(ws, common))
        })
        yield* Effect.acquireRelease(
          Effect.async<void, Error>((resume) => {
            server.once("error", (error) =>
              resume(
                Effect.fail(
                  new Error(
                    `the media server cannot listen on ${options.host}:${options.port} (MEDIA_PORT): ${error.message}`
                  )
                )
              ))
            server.listen(options.port, options.host, () => resume(Effect.void))
          }),
          () =>
            Effect.async<void>((resume) => {
              for (const client of wss.clients) {
                client.terminate()
              }
              wss.close()
              server.close(() => resume(Effect.void))
              server.closeAllConnections()
            })
        ).pipe(Effect.orDie)
        const address = server.address() as AddressInfo
        const bound = `ws://${
          options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host
        }:${address.port}`
        const advertised = options.advertisedHost === undefined
          ? bound
          : `ws://${options.advertisedHost}:${address.port}`
        const origin = (options.publicUrl ?? advertised).replace(/\/+$/, "")
        yield* Effect.logInfo(`media server listening on ${bound} (carriers reach it at ${origin})`)
        return {
          twilioStreamUrl: `${origin}${TWILIO_MEDIA_PATH}`,
          webStreamUrl: (sessionId) => `${advertised}${WEB_MEDIA_PATH}/${sessionId}`,
          tokenFor: (sessionId) =>
            Effect.map(Clock.currentTimeMillis, (now) => signMediaToken(secret, sessionId, now + TOKEN_LIFETIME_MS))
        }
      })
    )
}
