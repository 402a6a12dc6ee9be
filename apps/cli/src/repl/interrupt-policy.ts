/** What one Ctrl-C does in the REPL. */
export type InterruptAction = 'cancel-run' | 'clear-input' | 'warn' | 'exit';

/**
 * Ctrl-C in the REPL: it cancels a running turn; at the prompt it first discards typed input,
 * then warns, and a second Ctrl-C in a row exits. Entering a line disarms the exit.
 */
export class InterruptPolicy {
  private armed = false;

  decide(state: { readonly running: boolean; readonly hasInput: boolean }): InterruptAction {
    if (state.running) {
      this.armed = false;
      return 'cancel-run';
    }
    if (state.hasInput) {
      this.armed = false;
      return 'clear-input';
    }
    if (this.armed) return 'exit';
    this.armed = true;
    return 'warn';
  }

  /** Something else happened (a line was entered): the next Ctrl-C warns again. */
  reset(): void {
    this.armed = false;
  }
}
