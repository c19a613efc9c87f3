/** Vite's `?worker&url`: the address of a module built as its own file (the microphone's AudioWorklet). */
declare module "*?worker&url" {
  const url: string
  export default url
}
