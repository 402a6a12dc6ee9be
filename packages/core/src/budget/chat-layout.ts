import type { Message } from '../messages.js';
import type { ToolDefinition } from '../model/adapter.js';

/**
 * One run of text a chat template produces. A string is the template's own text (role markers,
 * special tokens written out, separators): it counts as overhead. An object is content, with any
 * template text that touches it on either side; that text is tokenized together with the content
 * (a tokenizer may merge across the seam) and only its own share goes to overhead.
 *
 * Pieces are tokenized one by one, so a layout must cut between pieces only where the tokenizer
 * cannot merge: at a special token, or where its pre-tokenizer always splits.
 */
export type LayoutPiece = string | { readonly content: string; readonly before?: string; readonly after?: string };

/**
 * How a provider's chat template lays a request out for its tokenizer. With a layout and the
 * provider's own tokenizer, a request estimator counts what the model reads token for token,
 * framing included, instead of adding upper bounds for the framing.
 */
export interface ChatLayout {
  /** Tokens of the template before the first message and after the last (begin-of-sequence, the reply's opening, a tool block's header). */
  request(context: ChatLayoutContext): readonly LayoutPiece[];
  /** The instructions as the system message carries them. */
  instructions(text: string, context: ChatLayoutContext): readonly LayoutPiece[];
  /** The message that carries the rendered checkpoint view. */
  checkpoint(text: string): readonly LayoutPiece[];
  /** One message of the history, the current request or the continuation. It must not depend on the message's neighbours. */
  message(message: Message): readonly LayoutPiece[];
  /** One advertised tool: its definition as the template writes it. */
  tool(tool: ToolDefinition): readonly LayoutPiece[];
}

export interface ChatLayoutContext {
  readonly hasTools: boolean;
}
