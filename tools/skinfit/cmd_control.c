/* skinfit control: the control run alone (a rig solved against its own
 * clips). The body is shared with transfer (cmd_transfer.c). */
#include "cli.h"
#include "transfer_report.h"

int cmd_control(int argc, char **argv)
{
    return tr_command(argc, argv, true);
}
