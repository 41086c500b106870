/** A bounded LIFO stack of i32 values. */
export class Stack {
  private items: i32[] = [];

  constructor(public readonly capacity: i32) {}

  get size(): i32 {
    return this.items.length;
  }

  push(value: i32): bool {
    if (this.items.length >= this.capacity) return false;
    this.items.push(value);
    return true;
  }

  pop(): i32 {
    return this.items.pop();
  }

  peek(): i32 {
    return this.items[this.items.length - 1];
  }

  isEmpty(): bool {
    return this.items.length == 0;
  }
}
