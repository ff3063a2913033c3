#!/usr/bin/env python3
"""Writes the broken WeChat Pay and Stripe samples keel's tests refuse, each
from a kept good sample with one defect, so a reader of the folder sees what
each file breaks. Run from this folder; the Alipay ones come from
make-alipay-samples.py."""
import gzip
import hashlib

GOOD_BILL = "wechatpay-tradebill-all.csv"
GOOD_PAYOUT = "stripe-payout-reconciliation.csv"


def read(name):
    with open(name, "rb") as f:
        return f.read()


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


def changed(data, old, new):
    assert data.count(old) == 1, old
    return data.replace(old, new)


def main():
    bill = read(GOOD_BILL)
    # The SHA1 WeChat Pay's download API answers beside the bill.
    write("wechatpay-tradebill-all.sha1", hashlib.sha1(bill).hexdigest().encode() + b"\n")
    # The summary counts one trade more than the detail holds.
    write("wechatpay-tradebill-totals-off.csv", changed(bill, b"`4,`134.38", b"`5,`134.38"))
    # A byte that is no UTF-8 in the header: the bill does not decode.
    write("wechatpay-tradebill-bad-utf8.csv",
          changed(bill, "商户退款单号".encode(), b"\xff\xfe" + "退款单号".encode()))
    # The bill as the API sends it with tar_type=GZIP, cut short in transfer.
    packed = gzip.compress(bill, mtime=0)
    write("wechatpay-tradebill-truncated.csv.gz", packed[:len(packed) - 9])

    payout = read(GOOD_PAYOUT)
    # A row whose net is not its gross less its fee.
    write("stripe-payout-totals-off.csv", changed(payout, b"1.03,23.97", b"1.03,24.00"))
    # A row of a category keel does not match yet: refused, never dropped.
    write("stripe-payout-adjustment.csv",
          changed(payout, b",charge,ch_3KeelSample0002", b",other_adjustment,ch_3KeelSample0002"))
    # A byte that is no UTF-8 in a description.
    write("stripe-payout-bad-utf8.csv", changed(payout, b"order 1002,", b"order \xff1002,"))


if __name__ == "__main__":
    main()
