/**
 * The conversation engine's metrics (per process: the conversations this runner hosts). No label
 * carries a call or an agent: `stage` and `provider` are bounded.
 */
import type { TurnLatency } from "@voiceagent/domain/Calls"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"

const SECONDS = MetricBoundaries.fromIterable([0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10])

/** Each answered turn's latencies, by stage (see `TurnLatency`). */
export const turnLatency = Metric.histogram(
  "voiceagent_turn_latency_seconds",
  SECONDS,
  "Latency of the agent's answers to the caller's turns, by stage: endpointing, stt_final_lag, llm_first_token, " +
    "tts_first_byte, overhead (the platform's own part), voice_to_voice"
)

/** From a stream's start to the agent's first audio sent (the greeting). */
export const firstAudio = Metric.histogram(
  "voiceagent_first_audio_seconds",
  SECONDS,
  "From a media stream's start to the agent's first audio sent on it"
)

/** From the caller's speech onset to the agent's audio cleared (`clear` sent). */
export const bargeIn = Metric.histogram(
  "voiceagent_barge_in_seconds",
  SECONDS,
  "From the caller's speech onset to the agent's audio stopped (barge-in)"
)

/** Conversations running in this process. */
export const conversations = Metric.gauge("voiceagent_conversations", {
  description: "Conversations (media streams attached to their call) running in this process"
})

/** Conversation notices by kind: a provider failing, reconnecting, missing. */
export const conversationNotices = Metric.counter("voiceagent_conversation_notices", {
  description: "Conversation notices (a provider failing or missing, a speech-to-text reconnect), by kind",
  incremental: true
})

const stage = (name: string, ms: number | null) =>
  ms === null ? Effect.void : Metric.update(Metric.tagged(turnLatency, "stage", name), ms / 1_000)

export const recordTurn = (latency: TurnLatency): Effect.Effect<void> =>
  Effect.all([
    stage("endpointing", latency.endpointingMs),
    stage("stt_final_lag", latency.sttFinalLagMs),
    stage("llm_first_token", latency.llmFirstTokenMs),
    stage("tts_first_byte", latency.ttsFirstByteMs),
    stage("overhead", latency.overheadMs),
    stage("voice_to_voice", latency.voiceToVoiceMs)
  ], { discard: true })
