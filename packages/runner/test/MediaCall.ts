/**
 * What the runner's media stream tests share (TwilioMediaStreams, TelnyxMediaStreams): the media
 * server on a free loopback port, the `LocalMedia` registry and the conversations behind it (the
 * offline responder, the built-in voice), an agent, and a call of this process waiting for its stream.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Agent } from "@voiceagent/domain/Agents"
import type { SessionId } from "@voiceagent/domain/Calls"
import type { AgentId, PersonaId, TenantId } from "@voiceagent/domain/Ids"
import { AgentBrain } from "@voiceagent/runner/Brain/AgentBrain"
import { Conversations } from "@voiceagent/runner/Calls/Conversations"
import type { EngineReport } from "@voiceagent/runner/Voice/Engine"
import { LocalMedia } from "@voiceagent/runner/Voice/Media"
import { MediaServer } from "@voiceagent/runner/Voice/MediaServer"
import { webrtcVad } from "@voiceagent/runner/Voice/Vad"
import { effectiveVoice, embeddedCatalog } from "@voiceagent/runner/Voice/VoiceCatalog"
import { VoiceProvidersLive } from "@voiceagent/runner/Voice/VoiceProvidersLive"
import { Effect, Layer, Option } from "effect"
import * as crypto from "node:crypto"

export const MediaLayer = Conversations.Default.pipe(
  Layer.provideMerge(MediaServer.layer({ host: "127.0.0.1", port: 0 })),
  Layer.provideMerge(LocalMedia.Default),
  Layer.provide(webrtcVad()),
  Layer.provide(
    VoiceProvidersLive().pipe(Layer.provide(AgentBrain.scripted), Layer.provide(NodeHttpClient.layerUndici))
  )
)

const GREETING = "Hello, this is Ada."

export const agent = new Agent({
  id: crypto.randomUUID() as AgentId,
  agent_id: crypto.randomUUID(),
  brain: { id: crypto.randomUUID() },
  name: "Ada",
  is_active: true,
  agent_persona_id: null as PersonaId | null,
  greetMessage: GREETING,
  agent_prompt: "You are Ada.",
  metadata: {},
  channel: "VOICE",
  settings: {},
  connectionId: null,
  knowledgeBaseIds: [],
  webhookTokenIssued: false,
  voice: {},
  effectiveVoice: effectiveVoice(embeddedCatalog, {}),
  createdAt: new Date(0),
  updatedAt: new Date(0)
})

/** A call of this process: its conversation prepared and waiting for its stream, and what it reports. */
export const call = Effect.gen(function*() {
  const sessionId = crypto.randomUUID() as SessionId
  const reports: Array<EngineReport> = []
  const waiters = new Set<() => void>()
  const handle = yield* (yield* Conversations).prepare({
    sessionId,
    tenantId: crypto.randomUUID() as TenantId,
    agent,
    history: Effect.succeed([]),
    report: (report) =>
      Effect.sync(() => {
        reports.push(report)
        for (const wake of waiters) wake()
      })
  })
  const route = Option.getOrThrow(yield* handle.streamRoute)
  /** Waits on the reports themselves (each one checks `ready`); dies after 20 s of real time saying what it saw. */
  const until = (what: string, ready: () => boolean) =>
    Effect.async<void>((resume) => {
      if (ready()) return resume(Effect.void)
      const check = () => {
        if (!ready()) return
        clearTimeout(timer)
        waiters.delete(check)
        resume(Effect.void)
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        resume(Effect.dieMessage(`no report of ${what}: reported ${JSON.stringify(reports.map((r) => r._tag))}`))
      }, 20_000)
      waiters.add(check)
      return Effect.sync(() => {
        clearTimeout(timer)
        waiters.delete(check)
      })
    })
  return { sessionId, reports, route, attached: handle.attached, until }
})

export type Call = Effect.Effect.Success<typeof call>
