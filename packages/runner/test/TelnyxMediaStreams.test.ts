/**
 * The Telnyx media path at the runner: the media server on a free loopback port (`/media/telnyx`),
 * the `LocalMedia` registry and a call's conversation behind it (the offline responder, the built-in
 * voice), Telnyx played by `FakeTelnyxMedia` over a real socket. The token comes as the dial's
 * `stream_auth_token` (the upgrade's header and the `connected` frame); a bad stream is closed
 * (1008) and reaches no call, or once accepted ends it with that reason.
 */
import { assert, describe, layer } from "@effect/vitest"
import type { SessionId } from "@voiceagent/domain/Calls"
import * as FakeTelnyxMedia from "@voiceagent/runner/Testing/FakeTelnyxMedia"
import { LocalMedia, type MediaEvent, type MediaSession } from "@voiceagent/runner/Voice/Media"
import { MediaServer } from "@voiceagent/runner/Voice/MediaServer"
import { telnyxStreamUrl } from "@voiceagent/runner/Voice/TelnyxMedia"
import { START_TIMEOUT_MS } from "@voiceagent/runner/Voice/TwilioMedia"
import { Effect, Queue, TestClock } from "effect"
import * as crypto from "node:crypto"
import { type Call, call, MediaLayer } from "./MediaCall.js"

const open = (
  route: Call["route"],
  options: {
    readonly start?: boolean
    readonly token?: string | null
    readonly tokenIn?: "header" | "connected" | "both"
  } = {}
) =>
  FakeTelnyxMedia.connect({
    url: telnyxStreamUrl(route.streamUrl),
    token: options.token === null ? undefined : options.token ?? route.token,
    tokenIn: options.tokenIn ?? "both",
    start: options.start ?? true
  })

const closeOf = (stream: FakeTelnyxMedia.FakeTelnyxMediaStream) =>
  Effect.map(stream.until("the socket to close", () => stream.closed() !== undefined), () => stream.closed()!)

const assertRefused = (closed: { readonly code: number; readonly reason: string }, reason: string) => {
  assert.strictEqual(closed.code, 1008, JSON.stringify(closed))
  assert.strictEqual(closed.reason, reason)
}

const startMessage = (fields: { readonly streamId?: unknown; readonly mediaFormat?: unknown }) =>
  JSON.stringify({
    event: "start",
    sequence_number: "1",
    ...(fields.streamId === undefined ? {} : { stream_id: fields.streamId }),
    start: {
      call_control_id: "v3:abc",
      ...("mediaFormat" in fields
        ? { media_format: fields.mediaFormat }
        : { media_format: { encoding: "PCMU", sample_rate: 8000, channels: 1 } })
    }
  })

const mediaMessage = (streamId: string | undefined, payload: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    event: "media",
    sequence_number: "2",
    media: { track: "inbound", chunk: "1", timestamp: "0", payload, ...extra },
    stream_id: streamId
  })

const connected = (c: Call, what = "the media connected") =>
  c.until(what, () => c.reports.some((r) => r._tag === "MediaConnected"))

describe("Telnyx media streams at the runner", () => {
  layer(MediaLayer, { timeout: 60_000 })((it) => {
    it.scoped(
      "a stream with its call's token becomes the call's media: the greeting plays in Telnyx's frames, marks come " +
        "back, DTMF is taken",
      () =>
        Effect.gen(function*() {
          const c = yield* call
          const stream = yield* open(c.route)
          yield* stream.until(
            "the greeting's first audio and mark",
            () => stream.audio().length > 0 && stream.marks().length > 0
          )
          assert.isTrue(c.attached())
          assert.deepInclude(c.reports.find((r) => r._tag === "MediaConnected"), { streamId: stream.streamId })
          const sent = stream.audio().length
          yield* TestClock.adjust("1 second")
          yield* stream.until("more of the greeting after the echoes", () => stream.audio().length > sent)
          assert.isTrue(stream.marks().some((m) => m.echoedAt !== undefined && !m.cleared))
          yield* stream.dtmf("5")
          // an error frame from Telnyx is logged; the stream goes on
          yield* stream.send(
            JSON.stringify({ event: "error", payload: { code: 100002, title: "unknown error", detail: "x" } })
          )
          // an event Telnyx may add later is ignored
          yield* stream.send(JSON.stringify({ event: "transcription", stream_id: stream.streamId }))
          yield* TestClock.adjust("100 millis")
          assert.isUndefined(stream.closed())
          assert.deepStrictEqual(stream.violations(), [])
          assert.strictEqual(c.reports.filter((r) => r._tag === "MediaStopped").length, 0)
          // Telnyx's stop ends the stream
          yield* stream.stop
          yield* c.until("the media stopped", () => c.reports.some((r) => r._tag === "MediaStopped"))
          assert.deepInclude(c.reports.find((r) => r._tag === "MediaStopped"), {
            reason: "the caller's stream stopped"
          })
        })
    )

    it.scoped("takes the token from the upgrade's header alone, or from the connected frame alone", () =>
      Effect.gen(function*() {
        for (const tokenIn of ["header", "connected"] as const) {
          const c = yield* call
          const stream = yield* open(c.route, { tokenIn })
          yield* connected(c, tokenIn)
          assert.isUndefined(stream.closed(), tokenIn)
        }
      }))

    it.scoped(
      "refused (1008) before start: no token, a wrong, another call's or a used token, no stream_id, not PCMU, media " +
        "or stop first",
      () =>
        Effect.gen(function*() {
          const c = yield* call
          const server = yield* MediaServer
          const [sessionPart, expiry, mac] = c.route.token.split(".") as [string, string, string]
          const tokens: ReadonlyArray<readonly [string | null, string]> = [
            [null, "start without a token"],
            ["garbage", "token malformed"],
            [`${crypto.randomUUID()}.${expiry}.${mac}`, "token bad signature"],
            [`${sessionPart}.${Number(expiry) + 60_000}.${mac}`, "token bad signature"],
            [yield* server.tokenFor(crypto.randomUUID()), "the call is not in this process"]
          ]
          for (const [token, reason] of tokens) assertRefused(yield* closeOf(yield* open(c.route, { token })), reason)
          const frames: ReadonlyArray<readonly [string, string]> = [
            [startMessage({}), "start without a stream_id"],
            [
              startMessage({ streamId: "s1", mediaFormat: { encoding: "PCMA", sample_rate: 8000, channels: 1 } }),
              "media format is not PCMU 8 kHz mono"
            ],
            [
              startMessage({ streamId: "s1", mediaFormat: { encoding: "L16", sample_rate: 16000, channels: 1 } }),
              "media format is not PCMU 8 kHz mono"
            ],
            [mediaMessage("s1", "/w=="), "media before start"],
            [JSON.stringify({ event: "stop" }), "stop before start"],
            [JSON.stringify({ event: "dtmf", dtmf: { digit: "1" } }), "dtmf before start"],
            [JSON.stringify({ event: "hello" }), "an unknown event before start"],
            ["{\"event\":", "a message that is not JSON"],
            ["[1]", "a message that is not an object"]
          ]
          for (const [frame, reason] of frames) {
            const stream = yield* open(c.route, { start: false })
            yield* stream.send(JSON.stringify({ event: "connected", version: "1.0.0" }))
            yield* stream.send(frame)
            assertRefused(yield* closeOf(stream), reason)
          }
          assert.isFalse(c.attached())
          assert.deepStrictEqual(c.reports, [])
          // none of these spent the token: the call's stream still gets through, once
          const good = yield* open(c.route)
          yield* connected(c)
          assertRefused(yield* closeOf(yield* open(c.route)), "token already used")
          assert.isUndefined(good.closed())
        })
    )

    it.scoped("a socket that does not start within START_TIMEOUT_MS is closed", () =>
      Effect.gen(function*() {
        const c = yield* call
        const silent = yield* open(c.route, { start: false })
        yield* TestClock.adjust(START_TIMEOUT_MS - 1)
        assert.isUndefined(silent.closed())
        yield* TestClock.adjust(1)
        assertRefused(yield* closeOf(silent), "no start within 10 s")
      }))

    it.scoped(
      "the session in Telnyx's words: late, repeated and outbound frames skipped, audio timed by its bytes (a " +
        "missing chunk as lost audio); media, mark and clear out",
      () =>
        Effect.gen(function*() {
          const local = yield* LocalMedia
          const server = yield* MediaServer
          const sessionId = crypto.randomUUID() as SessionId
          const sessions = yield* Queue.unbounded<MediaSession>()
          yield* local.register(sessionId, (session) => Queue.offer(sessions, session))
          const stream = yield* FakeTelnyxMedia.connect({
            url: telnyxStreamUrl(server.twilioStreamUrl),
            token: yield* server.tokenFor(sessionId),
            start: false
          })
          yield* stream.send(JSON.stringify({ event: "connected", version: "1.0.0" }))
          yield* stream.send(startMessage({ streamId: "s-1" }))
          const session = yield* Queue.take(sessions)
          assert.deepInclude(session, { sessionId, streamId: "s-1" })
          const frame = (bytes: number, fill: number) => Buffer.alloc(bytes, fill).toString("base64")
          for (
            const [chunk, bytes, fill, track] of [
              ["1", 160, 0x01, "inbound"],
              ["3", 160, 0x03, "inbound"],
              ["2", 160, 0x02, "inbound"], // late: its moment has passed
              ["3", 160, 0x03, "inbound"], // again
              ["4", 160, 0x04, "outbound"], // the agent's own track
              ["4", 320, 0x05, "inbound"]
            ] as const
          ) yield* stream.send(mediaMessage("s-1", frame(bytes, fill), { chunk, track }))
          yield* stream.send(JSON.stringify({ event: "mark", stream_id: "s-1", mark: { name: "m-0" } }))
          yield* stream.send(JSON.stringify({ event: "dtmf", stream_id: "s-1", dtmf: { digit: "#" } }))
          yield* stream.send(JSON.stringify({ event: "stop", stream_id: "s-1", stop: { call_control_id: "v3:abc" } }))
          const events: Array<MediaEvent> = []
          while (events.at(-1)?._tag !== "Stopped") events.push(yield* Queue.take(session.events))
          assert.deepStrictEqual(
            events.map((e) =>
              e._tag === "Audio"
                ? ["Audio", e.at, e.mulaw[0], e.mulaw.length]
                : e._tag === "Mark"
                ? ["Mark", e.name, e.at]
                : e._tag === "Dtmf"
                ? ["Dtmf", e.digit]
                : ["Stopped", e.reason]
            ),
            [["Audio", 0, 0x01, 160], ["Audio", 40, 0x03, 160], ["Audio", 60, 0x05, 320], ["Mark", "m-0", 60], [
              "Dtmf",
              "#"
            ], ["Stopped", "the caller's stream stopped"]]
          )
          assert.deepStrictEqual(yield* closeOf(stream), { code: 1000, reason: "" })

          // what the platform sends, as Telnyx takes it (recorded by the fake; a second stream for it)
          const other = crypto.randomUUID() as SessionId
          yield* local.register(other, (s) => Queue.offer(sessions, s))
          const line = yield* FakeTelnyxMedia.connect({
            url: telnyxStreamUrl(server.twilioStreamUrl),
            token: yield* server.tokenFor(other)
          })
          const media = yield* Queue.take(sessions)
          yield* media.play(new Int16Array(800))
          yield* media.mark("m-1")
          yield* line.until("the audio and its mark", () => line.audio().length === 1 && line.marks().length === 1)
          assert.strictEqual(line.audio()[0]!.mulaw.length, 800)
          yield* media.clear
          yield* line.until("the clear", () => line.clears().length === 1)
          assert.deepInclude(line.marks()[0], { name: "m-1", cleared: true })
          assert.deepStrictEqual(line.violations(), [])
          yield* media.close
          assert.deepStrictEqual(yield* closeOf(line), { code: 1000, reason: "" })
        })
    )

    it.scoped("an accepted stream that breaks the protocol is closed, and the call hears why", () =>
      Effect.gen(function*() {
        const cases: ReadonlyArray<readonly [string, (streamId: string) => string | Uint8Array, string]> = [
          ["not JSON", () => "{\"event\": \"media\",", "a message that is not JSON"],
          ["binary", () => new Uint8Array([1, 2, 3]), "a binary message"],
          ["another stream", () => mediaMessage("another", "/w=="), "media for another stream"],
          ["base64 garbage", (id) => mediaMessage(id, "@@not*base64@@"), "a media payload that is not base64"],
          ["an empty payload", (id) => mediaMessage(id, ""), "a media payload that is not base64"],
          [
            "over a second of audio",
            (id) => mediaMessage(id, Buffer.alloc(8_001, 0xff).toString("base64")),
            "a media payload over 1 s"
          ],
          ["a second start", (id) => startMessage({ streamId: id }), "a second start"],
          [
            "a dtmf without a digit",
            (id) => JSON.stringify({ event: "dtmf", stream_id: id, dtmf: { digit: "xy" } }),
            "a dtmf event without a digit"
          ],
          [
            "a mark without a name",
            (id) => JSON.stringify({ event: "mark", stream_id: id, mark: {} }),
            "a mark without a name"
          ]
        ]
        for (const [what, frame, reason] of cases) {
          const c = yield* call
          const stream = yield* open(c.route)
          yield* connected(c, what)
          yield* stream.send(frame(stream.streamId))
          assertRefused(yield* closeOf(stream), reason)
          yield* c.until(what, () => c.reports.some((r) => r._tag === "MediaStopped"))
          assert.deepInclude(c.reports.find((r) => r._tag === "MediaStopped"), { reason }, what)
        }
      }))

    it.scoped("the Twilio path beside it is untouched, and an unknown path is a 404", () =>
      Effect.gen(function*() {
        const c = yield* call
        assert.match(c.route.streamUrl, /\/media\/twilio$/)
        const wrong = yield* Effect.either(
          FakeTelnyxMedia.connect({
            url: c.route.streamUrl.replace("/media/twilio", "/media/other"),
            token: c.route.token
          })
        )
        assert.isTrue(wrong._tag === "Left")
      }))
  })
})
