"""The leading comments of a `.proto` file's fields, as the table's column comments take them
(no Spark: `app.pipeline.protobuf_comments` reads the text alone)."""
from __future__ import annotations

from app.pipeline.protobuf_comments import field_comments

PROTO = """syntax = "proto3";
package shop;

// The order.
message Order {
  // Its id.
  string id = 1;
  int32 count = 2; // trailing: not the next field's
  string note = 3;

  // detached by a blank line

  string ref = 4;
  /* A block
   * over two lines. */
  Item item = 5;
  oneof paid {
    // by card
    string card = 6;
  }
  message Item {
    /* the sku */ /* and more */ string sku = 1;
    // its price
    double price = 2;
  }
}
"""


def test_each_field_gets_the_comment_directly_above_it_and_no_other():
    assert field_comments(PROTO) == {
        "shop.Order": {"id": "Its id.", "item": "A block over two lines.", "card": "by card"},
        "shop.Order.Item": {"sku": "the sku", "price": "its price"},
    }


def test_comments_on_one_long_line_are_read_in_one_pass():
    """Many comments on one line (a text made to be costly): each after the first trails it."""
    line = "message M { " + "/* c */ " * 20_000 + "string f = 1; }"
    assert field_comments('syntax = "proto3";\n' + line) == {"M": {}}
