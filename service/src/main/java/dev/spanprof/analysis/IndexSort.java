package dev.spanprof.analysis;

/** Sorts int indices without boxing: stable, O(n log n). */
final class IndexSort {

  /** Below this many indices an insertion sort is cheaper than merging, and needs no buffer. */
  private static final int INSERTION_SORT_MAX = 16;

  /** Orders two indices: negative when {@code a} comes first, as {@link java.util.Comparator}. */
  @FunctionalInterface
  interface IndexOrder {
    int compare(int a, int b);
  }

  private IndexSort() {}

  /** Sorts {@code indices[0, length)} so that {@code keys[indices[i]]} ascends; stable. */
  static void byKey(int[] indices, int length, long[] keys) {
    // Most calls (a span's children for its self time) sort none or one: no comparator for them.
    if (length > 1) {
      by(indices, length, (a, b) -> Long.compare(keys[a], keys[b]));
    }
  }

  /** Sorts {@code indices[0, length)} by {@code order}; stable. */
  static void by(int[] indices, int length, IndexOrder order) {
    if (length <= INSERTION_SORT_MAX) {
      for (int i = 1; i < length; i++) {
        int moving = indices[i];
        int j = i - 1;
        while (j >= 0 && order.compare(moving, indices[j]) < 0) {
          indices[j + 1] = indices[j];
          j--;
        }
        indices[j + 1] = moving;
      }
      return;
    }
    int[] buffer = new int[length];
    for (int width = 1; width < length; width *= 2) {
      for (int low = 0; low < length - width; low += 2 * width) {
        int middle = low + width;
        int high = Math.min(low + 2 * width, length);
        int left = low;
        int right = middle;
        int out = low;
        while (left < middle && right < high) {
          buffer[out++] = order.compare(indices[right], indices[left]) < 0
              ? indices[right++] : indices[left++];
        }
        while (left < middle) {
          buffer[out++] = indices[left++];
        }
        while (right < high) {
          buffer[out++] = indices[right++];
        }
        System.arraycopy(buffer, low, indices, low, high - low);
      }
    }
  }
}
