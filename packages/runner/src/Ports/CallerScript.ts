/**
 * The script a simulated callee follows, step by step (`SimulatedCaller` plays it; its `say`,
 * `interrupt`, `press`… build the steps). A dial request carries one (`DialRequest.callerScript`, from
 * the call's metadata) for the simulated carrier's callee, so the step type sits here, below both the
 * telephony port and the voice engine that plays it.
 */
import * as Data from "effect/Data"

export type CallerStep = Data.TaggedEnum<{
  Say: { readonly text: string; readonly afterAgentMs: number }
  Interrupt: { readonly text: string; readonly afterAgentStartsMs: number; readonly backchannel: boolean }
  Noise: { readonly ms: number; readonly afterAgentStartsMs: number | null }
  Pause: { readonly ms: number }
  /**
   * Presses keys (DTMF, as the carrier reports them), `gapMs` apart: when it would say its next line,
   * or `afterAgentStartsMs` into the agent's answer (over it).
   */
  Press: {
    readonly keys: string
    readonly afterAgentMs: number
    readonly gapMs: number
    readonly afterAgentStartsMs: number | null
  }
  Silent: { readonly ms: number }
  HangUp: {}
  /** An answering machine picks up: its greeting at once (read without a pause), then its beep (ms; 0: none). */
  Machine: { readonly beepMs: number }
}>
export const CallerStep = Data.taggedEnum<CallerStep>()
