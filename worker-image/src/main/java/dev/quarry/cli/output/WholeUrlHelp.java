package dev.quarry.cli.output;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Usage help whose option and parameter descriptions keep a URL on one line: picocli wraps where the JDK's line
 * breaks allow, and they allow one after "s3:" and after dots, which printed {@code s3:} and {@code //bucket} on two
 * lines. A description holding a URL is wrapped at spaces only.
 */
public final class WholeUrlHelp extends CommandLine.Help {
  public WholeUrlHelp(CommandSpec command, ColorScheme colorScheme) {
    super(command, colorScheme);
  }

  @Override
  public Layout createDefaultLayout(List<OptionSpec> options, List<PositionalParamSpec> positionals,
      ColorScheme colorScheme) {
    Layout layout = super.createDefaultLayout(options, positionals, colorScheme);
    return new Layout(colorScheme, new SpaceWrappingTable(colorScheme, layout.textTable()), layout.optionRenderer(),
        layout.parameterRenderer());
  }

  /** Wraps a text that holds a URL at spaces only; any other text as picocli does. */
  private static final class SpaceWrappingTable extends TextTable {
    private final ColorScheme colorScheme;

    SpaceWrappingTable(ColorScheme colorScheme, TextTable like) {
      super(colorScheme, like.columns());
      this.colorScheme = colorScheme;
      this.indentWrappedLines = like.indentWrappedLines;
      setAdjustLineBreaksForWideCJKCharacters(like.isAdjustLineBreaksForWideCJKCharacters());
    }

    @Override
    public Cell putValue(int row, int col, Text value) {
      String text = value.plainString();
      Column column = columns()[col];
      int width = column.width - column.indent - 1;
      if (!text.contains("://") || text.length() <= width || column.overflow != Column.Overflow.WRAP) {
        return super.putValue(row, col, value);
      }
      Cell cell = null;
      int line = row;
      for (String part : lines(text, width, indentWrappedLines)) {
        if (cell != null) {
          addEmptyRow();
          line = rowCount() - 1;
        }
        cell = super.putValue(line, col, colorScheme.text(part));
      }
      return cell;
    }

    /** The text in lines of at most {@code width} characters, broken at spaces, later lines indented. */
    private static List<String> lines(String text, int width, int indent) {
      List<String> lines = new ArrayList<>();
      StringBuilder line = new StringBuilder();
      for (String word : text.strip().split(" +")) {
        int limit = lines.isEmpty() ? width : width - indent;
        if (!line.isEmpty() && line.length() + 1 + word.length() > limit) {
          lines.add((lines.isEmpty() ? "" : " ".repeat(indent)) + line);
          line.setLength(0);
        }
        line.append(line.isEmpty() ? "" : " ").append(word);
      }
      lines.add((lines.isEmpty() ? "" : " ".repeat(indent)) + line);
      return lines;
    }
  }
}
