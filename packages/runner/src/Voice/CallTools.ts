/**
 * The tools that act on the call itself: `send_dtmf` (the agent presses keys, to find its way
 * through a phone menu) and `transfer_call` (the agent hands the caller to a person). Their
 * arguments are the model's, so every one is checked; a bad one is answered as the tool's result
 * (the model may try again), never a failure of the call.
 *
 * Keys go in the call's audio (DTMF tones, `Dtmf.dtmfTones`) after what the agent has said so far
 * has played, unless the line carries them as messages of its own (a web call's client). A transfer
 * goes only to a number the agent's settings list (`transfer.numbers`); the caller cannot dictate
 * another. It finishes the agent's part: a warm one after its hand-off line, a cold one at once;
 * then the call's entity asks the carrier to transfer (the engine's `Transfer` report).
 */
import type { ResolvedVoice } from "@voiceagent/domain/AgentVoice"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { DTMF_DIGITS, dtmfTones } from "./Dtmf.js"
import type { EngineReport, ToolContext, ToolOutcome } from "./Engine.js"
import type { ToolSpec } from "./LanguageModel.js"
import type { MediaSession } from "./Media.js"

export const SEND_DTMF_TOOL = "send_dtmf"
export const TRANSFER_CALL_TOOL = "transfer_call"

/** The most keys the agent presses at once. */
export const MAX_SENT_DIGITS = 32

/** The tools' specs, for the agent's settings. */
export const callToolSpecs = (voice: ResolvedVoice): ReadonlyArray<ToolSpec> => [
  ...(voice.keypad.agentMayPress
    ? [{
      name: SEND_DTMF_TOOL,
      description:
        "Press keys on the phone's keypad (DTMF), to choose an option of an automated phone menu or enter a number " +
        "it asks for. Only when a menu asks for keys.",
      parameters: {
        type: "object",
        properties: {
          digits: {
            type: "string",
            description: `The keys in order: 0-9, *, #, A-D; at most ${MAX_SENT_DIGITS}`,
            pattern: "^[0-9*#A-D]{1,32}$"
          }
        },
        required: ["digits"],
        additionalProperties: false
      }
    }]
    : []),
  ...(voice.transfer.numbers.length > 0
    ? [{
      name: TRANSFER_CALL_TOOL,
      description:
        "Transfer the caller to a person at one of the allowed numbers, when they ask for one or you cannot help. " +
        "cold: hand over at once; warm: say a short hand-off line first. Your part of the call ends with it.",
      parameters: {
        type: "object",
        properties: {
          number: {
            type: "string",
            enum: [...voice.transfer.numbers],
            description: `Default ${voice.transfer.numbers[0]}`
          },
          mode: { type: "string", enum: ["cold", "warm"] },
          message: { type: "string", description: "warm: the line you say before the transfer" }
        },
        required: ["mode"],
        additionalProperties: false
      }
    }]
    : [])
]

const argsOf = (args: string): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(args)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? parsed as Record<string, unknown>
      : undefined
  } catch {
    return undefined
  }
}

/** The keys a `send_dtmf` call asks for, or why they cannot be pressed. */
export const parseDigits = (args: string): { readonly digits: string } | { readonly refused: string } => {
  const digits = argsOf(args)?.["digits"]
  if (typeof digits !== "string" || digits === "") {
    return { refused: "send_dtmf needs digits: a string of 0-9, *, #, A-D." }
  }
  if (!DTMF_DIGITS.test(digits)) return { refused: "Only the keys 0-9, *, #, A-D can be pressed." }
  if (digits.length > MAX_SENT_DIGITS) return { refused: `At most ${MAX_SENT_DIGITS} keys at once.` }
  return { digits }
}

export interface TransferTarget {
  readonly to: string
  readonly mode: "cold" | "warm"
  /** What the agent says first (warm); empty for a cold transfer. */
  readonly line: string
}

/** Where a `transfer_call` call hands the call, or why it cannot. */
export const parseTransfer = (
  args: string,
  settings: ResolvedVoice["transfer"]
): TransferTarget | { readonly refused: string } => {
  const parsed = argsOf(args)
  if (parsed === undefined) return { refused: "transfer_call needs its arguments as a JSON object." }
  const mode = parsed["mode"] ?? "cold"
  if (mode !== "cold" && mode !== "warm") return { refused: "mode must be cold or warm." }
  const number = parsed["number"] ?? settings.numbers[0]
  if (typeof number !== "string" || !settings.numbers.includes(number)) {
    return { refused: `The call can only be transferred to ${settings.numbers.join(", ")}.` }
  }
  const message = parsed["message"]
  const own = typeof message === "string" ? message.trim().slice(0, 300) : ""
  return { to: number, mode, line: mode === "warm" ? (own === "" ? settings.warmMessage : own) : "" }
}

/** Presses `digits` on the line: as tones after the agent's audio so far, or as the line's own messages. */
export const pressKeys = (media: MediaSession, digits: string, context: ToolContext): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (media.sendDigits !== undefined) return yield* media.sendDigits(digits)
    yield* context.quiet
    const tones = dtmfTones(digits)
    // sent at once in 100 ms pieces: the carrier plays them in order, before anything the agent says next
    for (let at = 0; at < tones.length; at += 800) yield* media.play(tones.subarray(at, at + 800))
  })

export interface CallTools {
  readonly specs: ReadonlyArray<ToolSpec>
  /** Runs `name` if it is one of these tools. */
  readonly run: (name: string, args: string, context: ToolContext) => Effect.Effect<ToolOutcome> | undefined
  /** The engine's reports, with the agent's transfer in place of its hang-up. */
  readonly report: (report: EngineReport) => Effect.Effect<EngineReport>
}

/** The call tools of one conversation (one media stream). */
export const makeCallTools = (voice: ResolvedVoice, media: MediaSession): CallTools => {
  let transfer: TransferTarget | undefined
  const specs = callToolSpecs(voice)
  const offered = new Set(specs.map((spec) => spec.name))
  return {
    specs,
    run: (name, args, context) => {
      if (!offered.has(name)) return undefined
      if (name === SEND_DTMF_TOOL) {
        const parsed = parseDigits(args)
        if ("refused" in parsed) return Effect.succeed({ result: parsed.refused })
        return Effect.as(pressKeys(media, parsed.digits, context), { result: `Pressed ${parsed.digits}.` })
      }
      const parsed = parseTransfer(args, voice.transfer)
      if ("refused" in parsed) return Effect.succeed({ result: parsed.refused })
      transfer = parsed
      return Effect.succeed({
        result: `Transferring the call to ${parsed.to} (${parsed.mode}).`,
        finish: { text: parsed.line, reason: "transferred" }
      })
    },
    report: (report) =>
      report._tag === "HangUp" && report.reason === "transferred" && transfer !== undefined
        ? Effect.map(
          Clock.currentTimeMillis,
          (at): EngineReport => ({ _tag: "Transfer", to: transfer!.to, mode: transfer!.mode, at })
        )
        : Effect.succeed(report)
  }
}
