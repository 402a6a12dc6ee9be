/** Keeps the first `limit` items pushed and counts the rest, so a huge trace cannot grow a list without bound. */
export class BoundedList<T> {
  readonly items: T[] = [];
  private pushed = 0;

  constructor(private readonly limit: number) {}

  push(item: T): void {
    this.pushed += 1;
    if (this.items.length < this.limit) this.items.push(item);
  }

  get total(): number {
    return this.pushed;
  }

  get notListed(): number {
    return this.pushed - this.items.length;
  }
}

/** Keeps the `limit` largest items seen by `key`, largest first. */
export class TopList<T> {
  readonly items: T[] = [];

  constructor(
    private readonly limit: number,
    private readonly key: (item: T) => number,
  ) {}

  offer(item: T): void {
    const value = this.key(item);
    if (this.items.length === this.limit) {
      const smallest = this.items.at(-1);
      if (smallest === undefined || this.key(smallest) >= value) return;
      this.items.pop();
    }
    const index = this.items.findIndex((existing) => this.key(existing) < value);
    if (index === -1) this.items.push(item);
    else this.items.splice(index, 0, item);
  }
}
