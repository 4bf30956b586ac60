package dev.spanprof.analysis;

/** Sorts int indices by long keys without boxing: a stable merge sort, O(n log n). */
final class IndexSort {

  private IndexSort() {}

  /** Sorts {@code indices[0, length)} so that {@code keys[indices[i]]} ascends; stable. */
  static void byKey(int[] indices, int length, long[] keys) {
    if (length < 2) {
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
          buffer[out++] = keys[indices[right]] < keys[indices[left]] ? indices[right++] : indices[left++];
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
