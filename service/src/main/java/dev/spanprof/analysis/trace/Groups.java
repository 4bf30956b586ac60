package dev.spanprof.analysis.trace;

/**
 * Positions placed by group, a counting sort: group g's members end up in
 * {@code members[start[g], start[g + 1])}, in the order they were given. The span tree groups
 * children by parent this way, and the resource sweep spans by resource.
 */
final class Groups {

  private Groups() {}

  /**
   * Counts the members of each group into {@code start}, zeroed, of {@code groups + 1}, for
   * {@code group[i]} of positions i in [0, count) (negative: in no group).
   */
  static void countStarts(int[] group, int count, int groups, int[] start) {
    for (int i = 0; i < count; i++) {
      if (group[i] >= 0) {
        start[group[i] + 1]++;
      }
    }
    for (int g = 0; g < groups; g++) {
      start[g + 1] += start[g];
    }
  }

  /**
   * Places each group's members in their range of {@code members}, in {@code order}'s order;
   * {@code fill} is scratch of at least {@code groups}.
   */
  static void placeMembers(int[] group, int count, int groups, int[] start, int[] order,
      int[] members, int[] fill) {
    System.arraycopy(start, 0, fill, 0, groups);
    for (int k = 0; k < count; k++) {
      int i = order[k];
      if (group[i] >= 0) {
        members[fill[group[i]]++] = i;
      }
    }
  }
}
