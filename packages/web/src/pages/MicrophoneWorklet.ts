/**
 * The microphone's audio, on the audio rendering thread (an AudioWorklet module, built by Vite as
 * its own file under /assets): each 128-sample render quantum is converted to 16-bit PCM and
 * posted to the page in frames of `frameSamples` (20 ms at the context's 16 kHz).
 */

interface WorkletScope {
  readonly AudioWorkletProcessor: new() => { readonly port: MessagePort }
  registerProcessor(name: string, processor: unknown): void
}
const scope = globalThis as unknown as WorkletScope

class MicrophoneFrames extends scope.AudioWorkletProcessor {
  private readonly frameSamples: number
  private frame: Int16Array
  private filled = 0

  constructor(options: { readonly processorOptions: { readonly frameSamples: number } }) {
    super()
    this.frameSamples = options.processorOptions.frameSamples
    this.frame = new Int16Array(this.frameSamples)
  }

  process(inputs: ReadonlyArray<ReadonlyArray<Float32Array>>): boolean {
    const input = inputs[0]?.[0]
    if (input === undefined) return true
    for (let i = 0; i < input.length; i++) {
      this.frame[this.filled++] = Math.max(-32768, Math.min(32767, Math.round(input[i]! * 32767)))
      if (this.filled === this.frameSamples) {
        this.port.postMessage(this.frame, [this.frame.buffer])
        this.frame = new Int16Array(this.frameSamples)
        this.filled = 0
      }
    }
    return true
  }
}

scope.registerProcessor("microphone-frames", MicrophoneFrames)
