package dev.spanprof.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Lists of distinguished names as configuration gives them. A list (YAML) holds one name per
 * element. A single string (a system property or an environment variable, which cannot hold a
 * list) holds names separated by {@code ;}: a comma separates the parts of one name, and RFC 4514
 * escapes a {@code ;} inside a value ({@code \;}) or quotes it, so a separator is never part of
 * a name.
 */
final class SubjectNames {

  private SubjectNames() {}

  static List<String> split(Object value, String key) {
    if (value == null) {
      return List.of();
    }
    if (value instanceof Collection<?> names) {
      return names.stream().map(String::valueOf).map(String::strip)
          .filter(name -> !name.isEmpty()).toList();
    }
    if (value instanceof CharSequence names) {
      return splitAtSeparators(names.toString());
    }
    throw new IllegalArgumentException(key + ": a list of subject names, or names separated by ;,"
        + " not " + value.getClass().getSimpleName());
  }

  /** Splits at each {@code ;} that is neither escaped by a backslash nor within quotes. */
  private static List<String> splitAtSeparators(String names) {
    List<String> split = new ArrayList<>();
    StringBuilder name = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < names.length(); i++) {
      char c = names.charAt(i);
      if (c == '\\' && i + 1 < names.length()) {
        name.append(c).append(names.charAt(++i));
        continue;
      }
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ';' && !quoted) {
        add(split, name);
        continue;
      }
      name.append(c);
    }
    add(split, name);
    return List.copyOf(split);
  }

  private static void add(List<String> names, StringBuilder name) {
    String stripped = name.toString().strip();
    if (!stripped.isEmpty()) {
      names.add(stripped);
    }
    name.setLength(0);
  }
}
