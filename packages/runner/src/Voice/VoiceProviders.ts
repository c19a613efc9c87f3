/**
 * The speech and language providers this process can use, by name: built from the platform's
 * configuration (credentials are environment, never per tenant), with the offline parts always
 * present (the `offline` language model, the `flite` voice). The agent's `effectiveVoice` picks
 * among them; `VoiceCatalog` tells the API what is here.
 */
import * as Context from "effect/Context"
import type { LanguageModelProvider } from "./LanguageModel.js"
import type { SpeechToTextProvider } from "./SpeechToText.js"
import type { TextToSpeechProvider } from "./TextToSpeech.js"

export interface VoiceProvidersShape {
  readonly speechToText: ReadonlyMap<string, SpeechToTextProvider>
  readonly languageModel: ReadonlyMap<string, LanguageModelProvider>
  readonly textToSpeech: ReadonlyMap<string, TextToSpeechProvider>
  /** The voice each speech provider speaks with when an agent names none. */
  readonly defaultVoices: ReadonlyMap<string, string>
}

export class VoiceProviders extends Context.Tag("Voice/VoiceProviders")<VoiceProviders, VoiceProvidersShape>() {}
