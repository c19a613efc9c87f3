/**
 * The speech-to-text port: a stream of the caller's audio in, their words out as they are
 * recognised. One `SttStream` per call, opened by the conversation engine and closed with its
 * scope. Adapters: Deepgram's streaming API (interim and final results, endpointing, `Finalize`,
 * `KeepAlive`, a reconnect when the socket drops mid-call), and an OpenAI-compatible transcription
 * API (one request per utterance, for self-hosted Whisper servers). No adapter: the agent speaks
 * but cannot hear, and says so (see the engine).
 */
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

export interface SttOptions {
  /** BCP 47-ish language (`en`, `en-US`, `hi`, `multi`); adapters map it to the provider's. */
  readonly language: string
  /** The provider's model, when the agent names one. */
  readonly model?: string | undefined
  /** Words to favour (names, products): Deepgram's keyterms. */
  readonly keyterms?: ReadonlyArray<string> | undefined
}

export type SttEvent = Data.TaggedEnum<{
  /** Words recognised so far in the current stretch of speech; may still change. */
  Interim: { readonly text: string; readonly at: number }
  /** Words that will not change. `speechFinal`: the provider also judged the utterance over. */
  Final: { readonly text: string; readonly speechFinal: boolean; readonly at: number }
  /** The provider heard speech start (a hint; our own voice detector decides). */
  SpeechStarted: { readonly at: number }
  /** The provider's socket dropped and was opened again; audio in the gap was not recognised. */
  Reconnected: { readonly at: number; readonly reason: string }
}>
export const SttEvent = Data.taggedEnum<SttEvent>()

export class SpeechToTextError extends Data.TaggedError("SpeechToTextError")<{
  readonly reason: string
  /** Whether trying again may help (a dropped socket, a 5xx), as opposed to bad credentials. */
  readonly retryable: boolean
}> {}

export interface SttStream {
  /**
   * 20 ms of the caller's audio, G.711 μ-law at 8 kHz (as carriers send it). Called synchronously as
   * each frame arrives (the engine's hot path, no fiber per frame): it must not block, and may keep
   * `frame` (it is not written to afterwards).
   */
  readonly push: (frame: Uint8Array) => void
  /** The caller went quiet: give the final words now. */
  readonly finalize: Effect.Effect<void>
  /** What was recognised. Fails when the provider cannot be reached any more. */
  readonly events: Queue.Dequeue<SttEvent | SpeechToTextError>
}

export interface SpeechToTextProvider {
  /** `deepgram`, `openai`, … */
  readonly name: string
  readonly open: (options: SttOptions) => Effect.Effect<SttStream, SpeechToTextError, Scope.Scope>
}
